/**
 * The run view's first read, started by the head script (lib/preferences/head-script.ts) as soon as
 * a run page's HTML is parsed, instead of after hydration: on a long run the page's scripts load and
 * hydrate for a while after its header paints, and the run-view answer can arrive in that time
 * instead of after it. It waits for DOMContentLoaded and then
 * for the page's first contentful paint (the `paint` performance entry; where a browser has none,
 * the next frame: a requestAnimationFrame callback, then a task after it), so the header and
 * exceptions paint before any of it is fetched. Started at DOMContentLoaded, a cached answer arrived
 * before the header's first frame and counted against the bytes before that paint. A frame alone
 * was not enough once the header came with the shell (decision 0034): the HTML was parsed sooner,
 * and the read started before the paint. It
 * asks at low priority, so the page's own scripts go first. The page's run-view store adopts the
 * response (`takeEarlyRunView`); one nobody adopts within 30 s is aborted, and once the page has
 * made its own first read (it hydrated before that paint, or the tab is hidden and paints nothing)
 * the early read does not start.
 */

import { BASE_PATH } from "@/lib/http/base-path";

interface EarlyRunView {
  namespace: string;
  url: string;
  response: Promise<Response>;
  abort: () => void;
}

declare global {
  interface Window {
    __bwRunViewEarly?: EarlyRunView;
    /** Set by the page's first read: an early read that has not started by then never does. */
    __bwRunViewEarlyTaken?: boolean;
  }
}

/**
 * ES5 for the head script. The URL is built as `runViewUrl` builds it (lib/run-view/stream.ts:
 * workflow_id, run_id, then gzip=1), which `takeEarlyRunView` checks; only browsers that can inflate
 * ask for gzip, and the others skip the early read.
 */
export const EARLY_RUN_VIEW_SCRIPT = `try{var w=window,b=${JSON.stringify(BASE_PATH)},p=location.pathname,r=p.indexOf(b+"/")===0&&/^\\/namespaces\\/([^/]+)\\/workflows\\/([^/]+)\\/runs\\/([^/]+)\\/?$/.exec(p.slice(b.length));if(r&&typeof DecompressionStream!=="undefined"&&typeof AbortController!=="undefined"){var go=function(){if(w.__bwRunViewEarlyTaken)return;var q=new URLSearchParams({workflow_id:decodeURIComponent(r[2]),run_id:decodeURIComponent(r[3])});q.set("gzip","1");var u=b+"/api/run-view?"+q.toString(),c=new AbortController(),n=decodeURIComponent(r[1]);w.__bwRunViewEarly={namespace:n,url:u,response:fetch(u,{headers:{"X-Namespace":n,Accept:"application/x-ndjson"},signal:c.signal,priority:"low"}),abort:function(){c.abort()}};setTimeout(function(){var e=w.__bwRunViewEarly;if(e&&e.url===u){w.__bwRunViewEarly=undefined;c.abort()}},30000)};var next=function(){setTimeout(go,0)},frame=function(){if(typeof requestAnimationFrame==="function")requestAnimationFrame(next);else go()},later=function(){var P=w.PerformanceObserver;if(!P||!P.supportedEntryTypes||P.supportedEntryTypes.indexOf("paint")<0)return frame();try{var o=new P(function(l){if(l.getEntriesByName("first-contentful-paint").length){o.disconnect();next()}});o.observe({type:"paint",buffered:true})}catch(e){frame()}};if(document.readyState==="loading")document.addEventListener("DOMContentLoaded",later,{once:true});else later()}}catch(e){}`;

/** The head script's read of this run view, once: null when there is none (or it is for another). */
export function takeEarlyRunView(namespace: string, url: string): EarlyRunView | null {
  if (typeof window === "undefined") return null;
  window.__bwRunViewEarlyTaken = true;
  const early = window.__bwRunViewEarly;
  if (!early || early.url !== url || early.namespace !== namespace) return null;
  window.__bwRunViewEarly = undefined;
  return early;
}
