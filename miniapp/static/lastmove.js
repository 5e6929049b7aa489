// What someone just did, for the few seconds it stays marked: which log entry, where on the
// maze, and one short line in the reader's language ("Bob placed Curve ┘ at G3").
import { cellName } from "./cells.js";
import { t } from "./i18n.js";

export const LAST_MOVE_MS = 4500;
const NOT_MOVES = new Set(["round_started", "round_ended", "game_finished", "ready", "goal_revealed"]);

// The newest move of the log made after version `since` (-1: the newest of all), or null.
export function lastMoveOf(log, since) {
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log[i];
    if ((e.version ?? 0) <= since) return null;
    if (e.seat !== null && e.seat !== undefined && !NOT_MOVES.has(e.code)) return e;
  }
  return null;
}

// The maze's mark of a move: the card placed (outlined) or removed (fading out).
export function boardMark(e) {
  if (!e || e.x === undefined || e.x === null) return null;
  if (e.code === "path_placed") return { x: e.x, y: e.y, kind: "placed", card: e.card, rotated: !!e.rotated };
  if (e.code === "rockfall" || e.code === "path_removed") {
    return { x: e.x, y: e.y, kind: "removed", card: e.removed || null, rotated: !!e.removed_rotated };
  }
  return null;
}

// The line under the maze. `who(seat)` names a seat for this reader; `me` is the reader's.
export function lastLine(e, who, me) {
  const p = {
    who: who(e.seat), target: who(e.target_seat), tool: e.tool ? t(e.tool) : "",
    cell: e.x !== undefined && e.x !== null ? cellName(e.x, e.y) : "",
    card: e.card ? t(`cards.${e.card}`) || e.card : "", removed: e.removed ? t(`cards.${e.removed}`) || e.removed : "",
    goal: e.goal !== undefined && e.goal !== null ? e.goal + 1 : "", n: e.count ?? (e.cards ? e.cards.length : ""),
    remove: e.remove ? t(`actions.${e.remove}`) || e.remove : "",
  };
  const you = me !== null && me !== undefined && e.target_seat === me && e.seat !== me;
  return (you && t(`table.last.${e.code}_you`, p)) || t(`table.last.${e.code}`, p) || t(`logc.${e.code}`, p) || "";
}
