// Sheets over the board: log, secrets, the map reveal, round end, replay, local lobby.
import * as api from "./api.js";
import * as app from "./app.js";
import { cardSvg } from "./cards.js";
import { cellName } from "./cells.js";
import { t } from "./i18n.js";
import { esc, GLYPH } from "./icons.js";
import * as tg from "./tg.js";
import { myGames, replayMarks, replayStep, startReplay, stopReplay } from "./history.js";
import { newGameSheet } from "./lobby.js";
import { cat, displayName, look, message, S, seatName } from "./ui.js";

const $ = (sel) => document.querySelector(sel);

// The open sheet's own drawing, so a language switch can draw it again.
let again = null;
export function rerenderSheet() {
  if (again && !$("#overlay").hidden) again();
}

export function openSheet(html, bind, redraw = null) {
  again = redraw;
  $("#sheet").innerHTML = html;
  $("#overlay").hidden = false;
  $("#overlay").onclick = (e) => { if (e.target.id === "overlay") closeOverlay(); };
  tg.backButton(closeOverlay);
  if (bind) bind($("#sheet"));
}

export function closeOverlay() {
  again = null;
  $("#overlay").hidden = true;
  $("#sheet").innerHTML = "";
  tg.backButton(null);
}

export function logText(v, e) {
  const p = { ...e, who: seatName(v, e.seat), target: seatName(v, e.target_seat), tool: e.tool ? t(e.tool) : "",
    cell: e.x !== undefined && e.x !== null ? cellName(e.x, e.y) : "",
    goal: e.goal !== undefined && e.goal !== null ? e.goal + 1 : "", n: e.count ?? (e.cards ? e.cards.length : ""),
    kind: e.kind ? t(e.kind === "gold" ? "goldKind" : "stoneKind") : "", remove: e.remove ? t(`actions.${e.remove}`) || e.remove : "",
    card: e.card ? t(`cards.${e.card}`) || e.card : "", removed: e.removed ? t(`cards.${e.removed}`) || e.removed : "" };
  const text = t(`logc.${e.code}`, p) || `${p.who} ${e.code}`;
  return e.timeout ? `${text} ${t("timedOut")}` : text;
}

export function showLog() {
  const v = S().view;
  if (!v) return;
  const items = [...(v.log || [])].reverse().map((e) => `<li><span class="v">${e.version ?? ""}</span>${esc(logText(v, e))}</li>`).join("");
  openSheet(`<h2>${esc(t("log"))}</h2><ul class="log" id="log-list">${items}</ul><div class="actions"><button type="button" data-close>${esc(t("close"))}</button></div>`,
    (el) => { el.querySelector("[data-close]").onclick = closeOverlay; }, showLog);
}

function goalCard(kind) {
  const L = look();
  const id = kind === "gold" ? "S1_GOAL_GOLD" : "S1_GOAL_STONE_NE";
  try { return cardSvg(cat(id), { look: L, x: 0, y: 0, w: 100, h: 150 }); } catch (e) { return ""; }
}

export function showSecrets() {
  const v = S().view;
  if (!v) return;
  const you = v.you || {};
  const role = you.role ? esc(t(`roles.${you.role}`) || you.role) : t("none");
  const info = you.role && look() ? (look().roles || {})[you.role] : null;
  const goals = (you.known_goals || []).map((g) => `<div class="row" data-known-goal="${g.goal}"><svg width="40" height="60" viewBox="0 0 100 150">${goalCard(g.kind)}</svg><span class="grow">${esc(t("goalN", { n: g.goal + 1 }))}: <b>${esc(t(g.kind === "gold" ? "goldKind" : "stoneKind"))}</b></span></div>`).join("") || `<div class="row">${t("none")}</div>`;
  const roles = (you.known_roles || []).map((r) => `<div class="row" data-known-role="${r.seat}"><span class="grow">${esc(seatName(v, r.seat))}</span><b>${esc(t(`roles.${r.role}`) || r.role)}</b>${r.stale ? ` <span>${esc(t("stale"))}</span>` : ""}</div>`).join("") || `<div class="row">${t("none")}</div>`;
  const gold = you.gold !== null && you.gold !== undefined ? `<div class="row">${esc(t("gold", { n: you.gold }))}</div>` : "";
  openSheet(`<h2>${esc(t("secrets"))}</h2>
    <h3>${esc(t("role"))}</h3><div class="row" id="my-role"><span class="badge" style="background:${info ? info.color : "#777"}">${info ? info.letter : "?"}</span><b class="grow">${role}</b></div>${gold}
    <h3>${esc(t("knownGoals"))}</h3>${goals}<h3>${esc(t("knownRoles"))}</h3>${roles}
    <div class="actions"><button type="button" data-close>${esc(t("close"))}</button></div>`,
  (el) => { el.querySelector("[data-close]").onclick = closeOverlay; }, showSecrets);
}

// A map was used: show the goal turning over, to this player only (it is in their view only).
export function flipGoal(g) {
  if (!g) return;
  openSheet(`<h2>${esc(t("goalN", { n: g.goal + 1 }))}</h2>
    <div class="flip" id="flip" data-kind="${esc(g.kind)}"><div class="inner">
      <svg class="face back" viewBox="0 0 100 150"><rect width="100" height="150" rx="7" fill="#2d4a6b"/><text x="50" y="92" font-size="60" text-anchor="middle" fill="#e8c547">?</text></svg>
      <svg class="face front" viewBox="0 0 100 150">${goalCard(g.kind)}</svg></div></div>
    <p class="center big"><b>${esc(t(g.kind === "gold" ? "goldKind" : "stoneKind"))}</b></p>
    <div class="actions"><button type="button" data-close class="primary">${esc(t("close"))}</button></div>`,
  (el) => { el.querySelector("[data-close]").onclick = closeOverlay; }, () => flipGoal(g));
}

// Round over: the round's winning side and seats. Game over: the game's winners
// (final.winners, most gold), starred, with everyone's gold, and "play again".
export function roundEnd(v) {
  const rr = v.round_result || {};
  const finished = v.status === "finished";
  const fin = finished && v.final ? v.final : null;
  const final = fin && Array.isArray(fin.gold) ? fin.gold : null;
  let won, winners;
  if (fin && Array.isArray(fin.winners)) {
    won = new Set(fin.winners);
    winners = fin.winners.map((seat) => seatName(v, seat)).join(", ");
  } else {
    won = new Set(rr.winning_seats || []);
    winners = rr.winners ? (Array.isArray(rr.winners) ? rr.winners : [rr.winners]).map((w) => t(`win.${w}`) || w).join(", ") : "";
  }
  const seats = [...(v.seats || [])];
  if (final) seats.sort((a, b) => (final[b.seat] ?? 0) - (final[a.seat] ?? 0));
  const rows = seats.map((s) => {
    const r = s.role || (rr.roles ? rr.roles[s.seat] : null);
    const roleName = r ? t(`roles.${r}`) || r : "";
    const info = r && look() ? (look().roles || {})[r] : null;
    const gain = rr.winnings && rr.winnings[s.seat] ? `<span>+${rr.winnings[s.seat]}</span>` : "";
    const total = final ? `<b class="gold">${GLYPH.gold} ${final[s.seat] ?? 0}</b>` : "";
    return `<div class="row${won.has(s.seat) ? " won" : ""}" data-seat-result="${s.seat}"${won.has(s.seat) ? " data-winner" : ""}>
      <span class="badge" style="background:${info ? info.color : "#777"}">${info ? info.letter : "?"}</span>
      <span class="grow">${esc(displayName(s))}${won.has(s.seat) ? " ★" : ""}</span><span>${esc(roleName)}</span>${gain}${total}</div>`;
  });
  const reached = rr.reached_by !== null && rr.reached_by !== undefined ? `<p>${esc(t("goldRoute"))}: ${esc(seatName(v, rr.reached_by))}</p>` : "";
  const mineWon = rr.your_winnings !== undefined && rr.your_winnings !== null ? `<p id="winnings"><b>${esc(t("yourWinnings", { n: rr.your_winnings }))}</b></p>` : "";
  const next = (v.legal_moves || []).find((m) => m.type === "next_round");
  const seated = v.you && v.you.seat !== null && v.you.seat !== undefined;
  // play again: inside Telegram (as the group's final message) and at the local table
  const again = finished && seated && (tg.inTelegram() || S().local);
  // share the result: Telegram 8.0+ with a bot to prepare the message (never local mode)
  const session = api.current();
  const share = finished && !S().local && tg.canShareMessage() && !!(session && session.can_share);
  openSheet(`<h2 id="result-title">${esc(finished ? t("gameOver") : t("roundOver"))}</h2>
    ${winners ? `<p id="winners">${esc(t("winners", { who: winners }))}</p>` : ""}${reached}${mineWon}
    ${finished ? `<h3>${esc(t("finalScores"))}</h3>` : ""}${rows.join("")}
    <div class="actions">${next ? `<button type="button" class="primary" data-next>${esc(t("nextRound"))}</button>` : ""}
    ${again ? `<button type="button" class="primary" data-again>${esc(t("table.playAgain"))}</button>` : ""}
    ${share ? `<button type="button" data-share>${esc(t("table.share"))}</button>` : ""}
    <button type="button" data-replay>${esc(t("replay"))}</button>
    ${finished && S().local ? `<button type="button" data-new>${esc(t("newGame"))}</button>` : ""}
    <button type="button" data-home hidden>${esc(t("table.addHome"))}</button>
    <button type="button" data-close>${esc(t("close"))}</button></div>`,
  (el) => {
    el.querySelector("[data-close]").onclick = closeOverlay;
    el.querySelector("[data-replay]").onclick = () => { closeOverlay(); startReplay(); };
    const n = el.querySelector("[data-next]");
    if (n) n.onclick = () => { closeOverlay(); app.send(next); };
    const a = el.querySelector("[data-again]");
    if (a) a.onclick = () => app.playAgain();
    const sh = el.querySelector("[data-share]");
    if (sh) sh.onclick = () => app.shareResult();
    const ng = el.querySelector("[data-new]");
    if (ng) ng.onclick = () => lobbySheet();
    if (finished) offerHomeScreen(el.querySelector("[data-home]"));
  }, () => roundEnd(S().view || v));
}

// After a finished game, inside Telegram 8.0+: offer the Mini App a place on the home
// screen, unless it has one already (or the client cannot tell).
async function offerHomeScreen(button) {
  if (!button) return;
  const status = await tg.homeScreenStatus();
  if (status !== "missed" && status !== "missing") return;
  button.hidden = false;
  button.onclick = () => { tg.addToHomeScreen(); button.hidden = true; };
}

// --- replay of any round: history.js ----------------------------------------------------------

export { replayMarks, replayStep, startReplay, stopReplay };

// --- lobby (local mode) and "no game" --------------------------------------------------------

// local mode's new game: every setting of the schema (lobby.js)
export function lobbySheet() { newGameSheet(); }

export async function noGame() {
  if (S().local) {
    message(t("newGame"), [[t("newGame"), () => { $("#message").hidden = true; lobbySheet(); }]]);
    return;
  }
  let games = [];
  try { games = (await api.myGames()).games || []; } catch (e) { games = []; }
  const past = [t("myGames"), () => { $("#message").hidden = true; myGames(); }]; // finished ones
  if (!games.length) { message(t("noGame"), [past]); return; }
  message(t("yourGames"), [...games.map((g) => [typeof g === "string" ? g : g.game_id, () => app.openGame(typeof g === "string" ? g : g.game_id)]), past]);
}
