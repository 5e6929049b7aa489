// The Mini App page: state, flow and wiring. Rules live on the server: every choice offered
// here comes from the view's legal_moves, and the server has the last word on every move.
import * as api from "./api.js";
import { Board, loadCards } from "./board.js";
import * as past from "./history.js";
import { LANGS, addNames, language, pickLanguage, setLanguage, t } from "./i18n.js";
import * as lobby from "./lobby.js";
import * as tg from "./tg.js";
import * as ui from "./ui.js";
import { lastMoveOf, LAST_MOVE_MS } from "./lastmove.js";

const $ = (sel) => document.querySelector(sel);
export const S = {
  gameId: null, view: null, catalogue: { cards: {}, look: null }, sel: null, cell: null, goal: null,
  rotated: false, choice: null, discard: false, picked: [], busy: false, live: null, shownEnd: null,
  replay: null, knownGoals: 0, local: false, last: null,
};
window.__sab = S; // for tests and debugging: state only, no secrets beyond this player's view

let board;

function params() {
  const q = new URLSearchParams(location.search);
  return { code: q.get("code"), game: q.get("game") };
}

function gameFromStart(session) {
  const sp = (session && session.start_param) || tg.unsafe().start_param || null;
  return sp && /^[A-Za-z0-9_-]{1,64}$/.test(sp) ? sp : null;
}

async function boot() {
  tg.start();
  setLanguage(pickLanguage((tg.unsafe().user || {}).language_code));
  ui.renderStatic();
  board = new Board($("#board"), { onTap });
  const { code, game } = params();
  if (code) history.replaceState(null, "", location.pathname + (game ? `?game=${encodeURIComponent(game)}` : ""));
  const [, cat] = await Promise.all([loadCards(), api.catalogue().catch(() => null)]);
  if (cat) {
    S.catalogue = cat;
    addNames(cat.names);
    board.setCatalogue(cat);
  }
  let session = null;
  try {
    session = await api.signIn(code);
  } catch (e) {
    ui.message(e.status === 401 ? t("sessionExpired") : t("error"));
    return;
  }
  if (!session) {
    ui.message(t("openInTelegram"));
    return;
  }
  S.local = !!session.local;
  ui.renderStatic();
  past.install();
  // the bot's "My games" links: ?view=history (private chats), startapp=history (groups)
  const start = gameFromStart(session);
  if (!game && (start === "history" || new URLSearchParams(location.search).get("view") === "history")) {
    await past.myGames();
    return;
  }
  const id = game || start || (S.local ? await newestGame() : null);
  if (id) await openGame(id);
  else await ui.noGame();
}

// Local mode's link names no game: the player's newest one, the one they come back to.
async function newestGame() {
  try { return ((await api.myGames()).games || [])[0] || null; } catch (e) { return null; }
}

export async function openGame(id) {
  if (S.live) S.live.stop();
  S.live = null;
  S.replay = null;
  S.gameId = id;
  wanted = 0;
  S.view = null;
  S.shownEnd = null;
  S.last = null;
  board.fitted = false;
  resetChoice();
  if (new URLSearchParams(location.search).get("game") !== id) {
    history.replaceState(null, "", `${location.pathname}?game=${encodeURIComponent(id)}`);
  }
  await refetch();
  if (S.view && S.view.archived) return; // from the archive: nothing will change
  S.live = api.live(id, {
    onOpen: (v) => refetch(v),
    onVersion: (v) => { if (!S.view || v > S.view.version) refetch(v); },
    onDown: () => ui.connection(false),
  });
}

// One fetch at a time; a version heard while a fetch is in flight is remembered, and the
// view is fetched again when the answer turns out older than that version.
let fetching = null;
let wanted = 0;
export async function refetch(atLeast = 0) {
  if (!S.gameId) return;
  wanted = Math.max(wanted, atLeast);
  if (fetching) return fetching;
  fetching = (async () => {
    try {
      for (let i = 0; i < 5; i++) {
        const view = await api.getView(S.gameId);
        setView(view);
        ui.connection(true);
        if (view.version >= wanted) break;
      }
    } catch (e) {
      if (e.status === 404) ui.message(t("noGame"));
      else if (e.status === 401) ui.message(t("sessionExpired"));
      else ui.toast(t("error"));
    } finally {
      fetching = null;
    }
  })();
  return fetching;
}

export function setView(view) {
  const old = S.view;
  if (old && old.game_id === view.game_id && view.version < old.version) return;
  const changed = !old || old.version !== view.version;
  S.view = view;
  if (changed) {
    const hand = new Set(((view.you && view.you.hand) || []).map((c) => c.id));
    if (S.sel && !hand.has(S.sel)) resetChoice();
    S.picked = S.picked.filter((id) => hand.has(id));
    if (S.choice && !findLegal(S.choice)) S.choice = null;
  }
  if (changed) noteLastMove(old, view);
  const known = ((view.you && view.you.known_goals) || []).length;
  if (old && known > S.knownGoals) ui.flipGoal(view.you.known_goals[known - 1]);
  S.knownGoals = known;
  if (changed && myTurnStarts(old, view)) S.frame = true; // frame what the reader can play
  render();
  if (changed) lobby.onView(view);
  if ((view.status === "round_over" || view.status === "finished") &&
      S.shownEnd !== `${view.round}:${view.status}`) {
    S.shownEnd = `${view.round}:${view.status}`;
    if (old && !board.moved) board.fit(); // the whole maze, the route to the gold lit
    ui.roundEnd(view);
  }
}

// The last move someone made, shown for a few seconds (the card outlined, the actor's chip
// flashing, a line in the reader's language); on open, the move that was made last.
function noteLastMove(old, view) {
  const since = old && old.game_id === view.game_id ? old.version : -1;
  const entry = lastMoveOf(view.log || [], since);
  if (!entry) return;
  S.last = { entry, at: Date.now() };
  clearTimeout(noteLastMove.timer);
  noteLastMove.timer = setTimeout(() => { S.last = null; render(); }, LAST_MOVE_MS);
}

const myTurn = (v) => !!(v && v.status === "playing" && v.you && v.you.seat !== null &&
  v.you.seat !== undefined && v.current_seat === v.you.seat && (v.legal_moves || []).length);
function myTurnStarts(old, view) {
  return myTurn(view) && !(old && old.game_id === view.game_id && myTurn(old) && old.round === view.round);
}

// --- choices ---------------------------------------------------------------------------

const legal = () => (S.view && S.view.legal_moves) || [];
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const findLegal = (mv) => legal().find((m) => same(m, mv));
export const movesOf = (cardId) => legal().filter((m) => m.card === cardId);

export function resetChoice() {
  S.sel = null; S.cell = null; S.goal = null; S.rotated = false; S.choice = null;
  S.discard = false; S.picked = [];
}

export function selectCard(id) {
  if (S.discard) {
    const i = S.picked.indexOf(id);
    if (i >= 0) S.picked.splice(i, 1);
    else if (S.picked.length < maxDiscard()) S.picked.push(id);
    S.choice = null;
    tg.haptic.select();
    render();
    return;
  }
  if (S.sel === id) { turnSelected(); return; }
  resetChoice();
  {
    S.sel = id;
    const moves = movesOf(id);
    if (moves.length === 1 && ["theft"].includes(moves[0].type)) S.choice = moves[0];
    S.reveal = true; // bring every target of this card into view
    tg.haptic.select();
  }
  render();
}

// Tapping the selected card again turns it (where it fits turned); it never puts it down:
// Cancel does that.
function turnSelected() {
  const moves = movesOf(S.sel);
  if (!moves.length || moves[0].type !== "place_path") return;
  if (S.cell) {
    const here = moves.filter((m) => m.x === S.cell[0] && m.y === S.cell[1]);
    const other = here.find((m) => m.rotated !== S.rotated);
    if (!other) { tg.haptic.error(); ui.toast(t("table.fitsOneWay")); return; }
    S.rotated = other.rotated;
  } else {
    S.rotated = !S.rotated;
  }
  tg.haptic.select();
  render();
}

export function maxDiscard() {
  return Math.max(0, ...legal().filter((m) => m.type === "discard").map((m) => m.cards.length));
}

export function toggleDiscard() {
  const on = !S.discard;
  const held = S.sel;
  resetChoice();
  S.discard = on;
  // "pick a card, then Discard": the card in hand is the one to throw away
  if (on && held && legal().some((m) => m.type === "discard" && m.cards.includes(held))) {
    S.picked = [held];
  }
  render();
}

export function choose(mv) {
  S.choice = same(S.choice, mv) ? null : mv;
  render();
}

function onTap({ x, y, goal }) {
  if (S.replay || !S.sel) return;
  const moves = movesOf(S.sel);
  const kind = moves.length ? moves[0].type : null;
  if (kind === "place_path") {
    const here = moves.filter((m) => m.x === x && m.y === y);
    if (!here.length) return;
    if (S.cell && S.cell[0] === x && S.cell[1] === y) {
      const other = here.find((m) => m.rotated !== S.rotated);
      if (other) { S.rotated = other.rotated; tg.haptic.select(); }
    } else {
      S.cell = [x, y];
      if (!here.some((m) => m.rotated === S.rotated)) S.rotated = here[0].rotated;
    }
  } else if (kind === "rockfall") {
    if (!moves.some((m) => m.x === x && m.y === y)) return;
    S.cell = [x, y];
  } else if (kind === "map") {
    const g = goal !== null && goal !== undefined ? goal
      : ((S.view.goals || []).find((gg) => gg.x === x && gg.y === y) || {}).goal;
    if (g === undefined || !moves.some((m) => m.goal === g)) return;
    S.goal = g;
  } else {
    return;
  }
  render();
}

// The move the player has put together, or null.
export function pending() {
  if (S.discard) {
    if (S.choice) return S.choice;
    const cards = [...S.picked].sort();
    return findLegal({ type: "discard", cards }) || null;
  }
  if (S.choice) return S.choice;
  if (!S.sel) return null;
  const moves = movesOf(S.sel);
  if (S.cell) {
    return moves.find((m) => m.x === S.cell[0] && m.y === S.cell[1] &&
      (m.type !== "place_path" || m.rotated === S.rotated)) || null;
  }
  if (S.goal !== null) return moves.find((m) => m.type === "map" && m.goal === S.goal) || null;
  return null;
}

// What went wrong, in the reader's language: the server's message is English, its codes
// are the same in every language.
export function errorText(e) {
  for (const code of [e.reason, e.code]) {
    const text = code ? t(`reasons.${code}`) : null;
    if (text) return text.charAt(0).toUpperCase() + text.slice(1);
  }
  return language() === "en" && e.message ? e.message : t("error");
}

export async function send(mv) {
  if (!mv || S.busy || !S.view) return;
  S.busy = true;
  ui.busy(true);
  try {
    const view = await api.move(S.gameId, S.view.version, mv);
    if (mv.type === "place_path") tg.haptic.light();
    else tg.haptic.success();
    resetChoice();
    setView(view);
  } catch (e) {
    tg.haptic.error();
    if (e.status === 409 && e.view) {
      ui.toast(t("stalePlay"));
      resetChoice();
      setView(e.view);
    } else if (e.status === 422) {
      ui.toast(t("illegal", { why: t(`reasons.${e.reason}`) || e.reason }));
    } else {
      ui.toast(errorText(e));
    }
  } finally {
    S.busy = false;
    ui.busy(false);
  }
}

export async function lobbyAction(action) {
  try {
    setView(await api.lobby(S.gameId, action));
  } catch (e) {
    tg.haptic.error();
    ui.toast(errorText(e));
  }
}

export async function newGame(edition, seats, level = "normal") {
  try {
    const made = await api.createGame({ edition, seats, computer_seats: seats - 1, level, options: {} });
    ui.closeOverlay();
    await openGame(made.game_id);
  } catch (e) {
    ui.toast(errorText(e));
  }
}

// "Play again" from the game-over sheet: the same lobby the group's button opens.
export async function playAgain() {
  try {
    const lobby = await api.rematch(S.gameId);
    ui.closeOverlay();
    await openGame(lobby.game_id);
  } catch (e) {
    tg.haptic.error();
    ui.toast(errorText(e));
  }
}

// Share the finished game's result into any chat: the bot prepares the message (the
// server's share route), Telegram lets the player pick the chat.
export async function shareResult() {
  try {
    const prepared = await api.shareResult(S.gameId);
    tg.shareMessage(prepared.prepared_message_id);
  } catch (e) {
    tg.haptic.error();
    ui.toast(errorText(e));
  }
}

export function setLang(code) {
  setLanguage(code, true);
  ui.renderStatic();
  past.install();
  render();
  ui.rerenderSheet(); // an open sheet follows the language too
}
export { LANGS, language };

export function render() {
  if (!S.view) return;
  const marks = S.replay ? ui.replayMarks() : ui.boardMarks();
  if (S.reveal) { marks.reveal = true; S.reveal = false; }
  if (S.frame && !S.replay) { marks.frame = ui.playableCells(); S.frame = false; }
  ui.render(); // first: the board fits into the space the bar and the hand leave
  board.render(S.replay ? S.replay.view : lobbyTable(S.view), marks);
}

// A lobby has no maze yet: show the table it will start from (start and three goals).
function lobbyTable(view) {
  if (view.status !== "lobby" || (view.board || []).length) return view;
  return { ...view, board: [{ x: 0, y: 0, card: "S1_START", rotated: false }],
    goals: [0, 1, 2].map((g) => ({ goal: g, x: 8, y: 2 * g - 2, revealed: false, kind: null })) };
}

export const fit = () => board.fit();
export const zoom = (f) => board.zoom(f);

window.__sabApi = { send, refetch, lobbyAction };
// back from the background (phone locked, app switched): the socket may have missed things
document.addEventListener("visibilitychange", () => { if (!document.hidden) refetch(); }); // the page's own calls, for tests and the console

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
