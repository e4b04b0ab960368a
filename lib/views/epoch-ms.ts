import { parseTimestamp } from "@/lib/format/time";

/*
 * An instant as epoch milliseconds, apart from events.ts so the screens that only read a time
 * (failure groups on Overview and Attention) do not load the history reader with it.
 */

function digitsAt(text: string, start: number, length: number): number {
  let value = 0;
  for (let i = start; i < start + length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The server's two instant forms (`2026-04-13T12:00:00.000000Z`, `…+00:00`) read by hand: a history
 * of 50,000 events is parsed on every render of a long run, and Date parsing of strings dominated.
 */
function fastEpochMs(text: string): number | null {
  if (text.length < 20 || text.charCodeAt(4) !== 45 || text.charCodeAt(10) !== 84) return null;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return null;
  let index = 19;
  let millis = 0;
  if (text.charCodeAt(index) === 46) {
    index++;
    const fractionStart = index;
    while (index < text.length && text.charCodeAt(index) >= 48 && text.charCodeAt(index) <= 57) index++;
    // Microseconds are truncated to milliseconds, never rounded up into the next one.
    const digits = Math.min(index - fractionStart, 3);
    millis = digits > 0 ? digitsAt(text, fractionStart, digits) * 10 ** (3 - digits) : 0;
  }
  let offsetMinutes = 0;
  const rest = text.length - index;
  if (rest === 1 && (text.charCodeAt(index) === 90 || text.charCodeAt(index) === 122)) {
    offsetMinutes = 0;
  } else if (rest === 6 || rest === 5) {
    const sign = text.charCodeAt(index);
    const hours = digitsAt(text, index + 1, 2);
    const minutes = digitsAt(text, index + rest - 2, 2);
    if ((sign !== 43 && sign !== 45) || hours < 0 || minutes < 0 || (rest === 6 && text.charCodeAt(index + 3) !== 58))
      return null;
    offsetMinutes = (sign === 45 ? -1 : 1) * (hours * 60 + minutes);
  } else {
    return null;
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
}

export function epochMs(value: string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  return fastEpochMs(value) ?? parseTimestamp(value)?.getTime() ?? null;
}
