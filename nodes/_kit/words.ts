/** Small pieces of the words a caregiver reads in receipts and warnings: counts said right. */

/** "1 alert", "2 alerts", "no alerts" when `none` is given and n is 0. */
export const count = (n: number, one: string, many: string, none?: string): string =>
  n === 0 && none !== undefined ? none : n === 1 ? `1 ${one}` : `${n} ${many}`;

/** Where the web app showed or said something: "1 screen", "2 screens". */
export const screens = (n: number): string => count(n, "screen", "screens");
