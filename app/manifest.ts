import type { MetadataRoute } from "next";

/** Installable-app metadata; the icons are the PNGs in public/, drawn from app/icon.svg. */
export default function manifest(): MetadataRoute.Manifest {
  return {
    name: "Breakwater",
    short_name: "Breakwater",
    description: "Operator console for Durable Workflow v2",
    start_url: "/",
    display: "standalone",
    background_color: "#ffffff",
    theme_color: "#1d4ed8",
    icons: [
      { src: "/icon-192.png", sizes: "192x192", type: "image/png" },
      { src: "/icon-512.png", sizes: "512x512", type: "image/png" },
    ],
  };
}
