import { RunNotFound } from "@/components/run-detail/run-not-found";

/** The page called notFound() for an unknown workflow or run: a 404 with the run page's own state. */
export default function NotFound() {
  return <RunNotFound />;
}
