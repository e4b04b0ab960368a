/**
 * The zones the time picker offers: the browser's IANA list (`Intl.supportedValuesOf("timeZone")`)
 * sorted, with UTC first and the zone in use kept even when the list lacks it (an alias such as
 * "Asia/Calcutta", or a browser without the API), so the picker always shows what is on screen.
 */
export function zoneChoices(supported: readonly string[], current: string): string[] {
  const rest = [...new Set([...supported, current])].filter((zone) => zone !== "UTC" && zone !== "");
  rest.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return ["UTC", ...rest];
}
