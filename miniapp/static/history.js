// "My games" (the archive's list of one's finished games) and the replay of any round of a
// game, step by step, from GET /api/games/{id}/replay: public facts only (each round's
// starting maze, its public log, its end with the goals turned).
import * as api from "./api.js";
import * as app from "./app.js";
import { language, t } from "./i18n.js";
import { esc, GLYPH } from "./icons.js";
import { boardMark } from "./lastmove.js";
import { newGameSheet } from "./lobby.js";
import { closeOverlay, logText, openSheet } from "./sheets.js";
import { S, toast } from "./ui.js";

const $ = (sel) => document.querySelector(sel);
// a clock with a back arrow: past games
const ICON = '<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M3 12a9 9 0 1 0 3-6.7"/><path d="M3 4v5h5"/><path d="M12 7v5l3 3"/></svg>';

// The header's button; its label follows the page's language.
export function install() {
  const b = $("#btn-history");
  if (!b) return;
  b.innerHTML = ICON;
  b.setAttribute("aria-label", t("myGames"));
  b.title = t("myGames");
  b.onclick = () => myGames();
}

function when(ms) {
  const locale = { en: "en-GB", "zh-hans": "zh-CN", "zh-hant": "zh-TW" }[language()] || "en-GB";
  try { return new Date(ms).toLocaleDateString(locale, { year: "numeric", month: "short", day: "numeric" }); } catch (e) { return ""; }
}

export async function myGames() {
  let games = [];
  try { games = (await api.request("GET", "/api/history")).games || []; } catch (e) { toast(app.errorText(e)); return; }
  // a game archived before replays were kept cannot be opened: listed, not a button
  const rows = games.map((g) => `<button type="button" class="row game" data-game="${esc(g.game_id)}"${g.replayable === false ? " disabled" : ""}>
      <span class="grow"><b>${esc(g.title || t("localTable"))}</b><br><small>${esc(when(g.finished_at))} · ${esc(t(g.edition) || g.edition)}</small></span>
      <span class="${g.result === "won" ? "won" : ""}">${esc(t(g.result === "won" ? "resultWon" : "resultLost"))}</span>
      <b class="gold">${GLYPH.gold} ${g.gold}</b></button>`).join("");
  openSheet(`<h2 id="my-games">${esc(t("myGames"))}</h2>
    ${rows || `<p id="no-history">${esc(t("noHistory"))}</p>`}
    <div class="actions">${S().local ? `<button type="button" class="primary" data-new>${esc(t("newGame"))}</button>` : ""}
    <button type="button" data-close>${esc(t("close"))}</button></div>`,
  (el) => {
    el.querySelector("[data-close]").onclick = closeOverlay;
    const n = el.querySelector("[data-new]");
    if (n) n.onclick = () => newGameSheet();
    for (const b of el.querySelectorAll("[data-game]")) {
      b.onclick = () => { closeOverlay(); app.openGame(b.dataset.game); };
    }
  });
}

// --- replay ------------------------------------------------------------------------------

function applyEntry(board, e) {
  const key = (x, y) => `${x},${y}`;
  if ((e.code === "path_placed" || e.code === "goal_revealed") && e.card && e.x !== undefined) {
    board.set(key(e.x, e.y), { x: e.x, y: e.y, card: e.card, rotated: !!e.rotated });
  } else if ((e.code === "rockfall" || e.code === "path_removed") && e.x !== undefined) {
    board.delete(key(e.x, e.y));
  }
}

// The replay button: one round straight away, or the round picker when there are several.
export async function startReplay() {
  const st = S();
  let doc;
  try { doc = await api.request("GET", `/api/games/${encodeURIComponent(st.gameId)}/replay`); } catch (e) { toast(app.errorText(e)); return; }
  const rounds = doc.rounds || [];
  if (!rounds.length) return;
  if (rounds.length === 1) { play(doc, rounds[0]); return; }
  const current = (st.view && st.view.round) || rounds[rounds.length - 1].round;
  openSheet(`<h2 id="replay-rounds">${esc(t("replayWhich"))}</h2>
    <div class="actions rounds">${rounds.map((r) => `<button type="button" data-round="${r.round}"${r.round === current ? ' class="primary"' : ""}>${esc(t("roundN", { n: r.round }))}</button>`).join("")}</div>
    <div class="actions"><button type="button" data-close>${esc(t("close"))}</button></div>`,
  (el) => {
    el.querySelector("[data-close]").onclick = closeOverlay;
    for (const b of el.querySelectorAll("[data-round]")) {
      b.onclick = () => { closeOverlay(); play(doc, rounds.find((r) => r.round === Number(b.dataset.round))); };
    }
  });
}

function play(doc, round) {
  const st = S();
  const steps = [new Map((round.start.board || []).map((c) => [`${c.x},${c.y}`, c]))];
  const entries = round.entries.filter((e) => e.code !== "round_started");
  for (const e of entries) {
    const next = new Map(steps[steps.length - 1]);
    applyEntry(next, e);
    steps.push(next);
  }
  st.replay = { doc, round: round.round, entries, steps, i: 0, view: null };
  replayStep(0);
}

// The replayed step's move stays outlined on the maze (no fading: the reader steps at will).
export function replayMarks() {
  const r = S().replay;
  const mark = r && r.i > 0 ? boardMark(r.entries[r.i - 1]) : null;
  return mark ? { last: { ...mark, card: null, steady: true } } : {};
}

export function replayStep(d) {
  const st = S();
  const r = st.replay;
  if (!r) return;
  r.i = Math.max(0, Math.min(r.steps.length - 1, r.i + d));
  const round = r.doc.rounds.find((x) => x.round === r.round);
  const last = r.i === r.steps.length - 1 && round.end;
  const board = [...r.steps[r.i].values()];
  const placed = new Set(board.map((c) => `${c.x},${c.y}`));
  const goals = (last ? round.end.goals : round.start.goals) || [];
  const v = st.view;
  // at the round's end every goal is shown (public then): marked as the board marks a peek
  const shownGoals = last ? goals.filter((g) => g.kind).map((g) => ({ goal: g.goal, kind: g.kind })) : [];
  r.view = { ...v, board, you: { ...(v.you || {}), known_goals: shownGoals },
    goals: goals.map((g) => ({ ...g, revealed: last ? !!g.revealed : placed.has(`${g.x},${g.y}`) })) };
  app.render();
  const e = r.entries[r.i - 1];
  const head = `${t("roundN", { n: r.round })} · ${t("replayStep", { i: r.i, n: r.steps.length - 1 })}`;
  $("#prompt").textContent = e ? `${head}: ${logText(v, e)}` : head;
}

export function stopReplay() {
  S().replay = null;
  app.render();
}
