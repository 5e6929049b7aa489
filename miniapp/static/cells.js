// Cell names as the group picture and the bot write them (core/cells.py): the row's letter,
// then the column's number — the start is G1, the goals E9, G9, I9. Same rule, same origins.
export const FIRST_ROW = -6; // the y of row "A"
export const FIRST_COLUMN = 0; // the x of column 1
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

function letters(n) { // 1 → A, 26 → Z, 27 → AA
  let out = "";
  while (n > 0) {
    const r = (n - 1) % 26;
    out = LETTERS[r] + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

export function rowName(y) {
  const index = y - FIRST_ROW;
  return index >= 0 ? letters(index + 1) : "-" + letters(-index);
}

export const columnName = (x) => String(x - FIRST_COLUMN + 1);
export const cellName = (x, y) => rowName(y) + columnName(x);
