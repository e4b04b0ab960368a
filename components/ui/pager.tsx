import { Button } from "@/components/ui/button";

/** Previous / next page buttons for cursor-paged lists; a missing handler disables its button. */
export function Pager({
  label,
  previousLabel,
  nextLabel,
  onPrevious,
  onNext,
}: {
  /** The navigation landmark's name. */
  label: string;
  previousLabel: string;
  nextLabel: string;
  onPrevious?: () => void;
  onNext?: () => void;
}) {
  return (
    <nav aria-label={label} className="flex items-center justify-end gap-2">
      <Button disabled={!onPrevious} onClick={onPrevious}>
        {previousLabel}
      </Button>
      <Button disabled={!onNext} onClick={onNext}>
        {nextLabel}
      </Button>
    </nav>
  );
}
