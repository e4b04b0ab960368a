/**
 * A workflow id as a page heading: ids may be thousands of characters (the server allows 128 on
 * start, but older or foreign ids are longer), so it wraps anywhere and stops after three lines; the
 * whole id is in the title and the copy button.
 */
export const ID_HEADING = "line-clamp-3 text-xl font-semibold tracking-tight [overflow-wrap:anywhere]";
