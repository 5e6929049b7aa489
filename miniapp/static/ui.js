// Everything around the maze: players strip, hand tray, action bar, sheets (log, secrets,
// round end, replay, lobby), toasts. Reads the state of app.js; changes it only via app.js.
import * as app from "./app.js";
import { cardSvg, toolIconSvg } from "./cards.js";
import { isYouWord, t } from "./i18n.js";
import { actionFace, esc, GLYPH } from "./icons.js";
import { boardMark, lastLine } from "./lastmove.js";
import { lobbySettings } from "./lobby.js";
import * as tg from "./tg.js";

import { closeOverlay, lobbySheet, replayStep, roundEnd, showLog, showSecrets, startReplay, stopReplay } from "./sheets.js";

export { closeOverlay, flipGoal, noGame, replayMarks, rerenderSheet, roundEnd } from "./sheets.js";

const $ = (sel) => document.querySelector(sel);
export const S = () => app.S;
export const look = () => S().catalogue.look;
export const cat = (id) => (S().catalogue.cards || {})[id] || { id, groups: [] };
// A seat's name for this reader: a computer seat's in the reader's language (the view's
// computer_no), the local table's "You" as "you" in it, anyone else's as they wrote it.
export const displayName = (seat) => {
  if (Number.isInteger(seat.computer_no)) return t("computerN", { n: seat.computer_no });
  if (seat.name && isYouWord(seat.name)) {
    const you = String(t("you"));
    return you.charAt(0).toUpperCase() + you.slice(1);
  }
  return seat.name || `#${seat.seat + 1}`;
};
export const seatName = (v, s) => {
  const seat = (v.seats || []).find((x) => x.seat === s);
  return seat ? displayName(seat) : (s === null || s === undefined ? "" : `#${s + 1}`);
};
const mine = (v) => (v.you ? v.you.seat : null);

// full screen: a frame with arrows out (drawn, so no font lacks the glyph)
const FULL_ICON = `<svg width="22" height="22" viewBox="0 0 22 22" aria-hidden="true"><path d="M3 8V3h5M3 3l6 6M14 3h5v5M19 3l-6 6M19 14v5h-5M19 19l-6-6M8 19H3v-5M3 19l6-6" stroke="currentColor" stroke-width="2" fill="none" stroke-linecap="round"/></svg>`;
// the language menu on a narrow phone: short names, so the header keeps its room
const SHORT_LANG = { en: "EN", "zh-hans": "简", "zh-hant": "繁" };

// --- static chrome ----------------------------------------------------------------------

export function renderStatic() {
  $("#title").textContent = t("title");
  document.title = t("title");
  const sel = $("#lang");
  const narrow = window.innerWidth < 360;
  sel.innerHTML = Object.entries(app.LANGS).map(([code, [name]]) =>
    `<option value="${code}"${code === app.language() ? " selected" : ""}${narrow ? ` label="${SHORT_LANG[code] || name}"` : ""}>${name}</option>`).join("");
  sel.onchange = () => app.setLang(sel.value);
  $("#btn-log").onclick = () => showLog();
  $("#btn-secrets").onclick = () => showSecrets();
  $("#btn-fit").onclick = () => app.fit();
  $("#btn-log").innerHTML = GLYPH.log;
  $("#btn-fit").innerHTML = GLYPH.fit;
  const fs = $("#btn-full");
  fs.hidden = !tg.canFullscreen(); // Telegram 8.0+ only
  fs.onclick = () => tg.toggleFullscreen();
  fs.innerHTML = FULL_ICON;
  $("#hand-more").onclick = () => { const h = $("#hand"); h.scrollBy({ left: h.clientWidth * 0.8, behavior: "smooth" }); };
  $("#zoom-in").onclick = () => app.zoom(0.8);
  $("#zoom-out").onclick = () => app.zoom(1.25);
  // what a screen reader says and a long press shows, in the reader's language
  for (const [sel, key] of [["#btn-log", "log"], ["#btn-fit", "fitView"], ["#zoom-in", "zoomIn"],
    ["#zoom-out", "zoomOut"], ["#lang", "language"], ["#players", "players"], ["#board", "maze"],
    ["#hand", "hand"], ["#btn-full", "table.fullscreen"], ["#hand-more", "table.moreCards"]]) {
    $(sel).setAttribute("aria-label", t(key));
    if ($(sel).tagName === "BUTTON") $(sel).title = t(key);
  }
}

let toastTimer = null;
export function toast(text) {
  const el = $("#toast");
  el.textContent = text;
  el.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("show"), 2600);
}

export function message(text, buttons = []) {
  const el = $("#message");
  el.hidden = false;
  el.innerHTML = `<div>${esc(text)}</div>`;
  for (const [label, fn] of buttons) {
    const b = document.createElement("button");
    b.textContent = label;
    b.onclick = fn;
    el.appendChild(b);
  }
}

export function connection(ok) {
  const el = $("#conn");
  el.hidden = ok;
  el.textContent = t("reconnecting");
}

export function busy(on) { document.body.classList.toggle("busy", on); }

// --- main render --------------------------------------------------------------------------

export function render() {
  const v = S().view;
  if (!v) return;
  $("#message").hidden = true;
  $("#title").hidden = true;
  $("#round").textContent = v.status === "lobby" ? t("lobby") : t("round", { round: v.round || 1, rounds: v.rounds || 1 });
  $("#deck").innerHTML = v.status === "lobby" ? "" : ` · <span title="${esc(t("deck", { n: v.deck_size ?? 0 }))}">${GLYPH.cards} ${v.deck_size ?? 0}</span>`;
  renderRole(v);
  renderPlayers(v);
  renderHand(v);
  renderBar(v);
  renderLastLine(v);
}

// --- the last move: a line over the maze for a few seconds ------------------------------

function renderLastLine(v) {
  const el = $("#lastline");
  const last = S().last;
  const me = mine(v);
  const text = last && !S().replay && last.entry.seat !== me ? lastLine(last.entry, (seat) => seatName(v, seat), me) : "";
  el.textContent = text;
  el.hidden = !text;
}

function renderRole(v) {
  const el = $("#role-badge");
  const role = v.you && v.you.role;
  const info = role && look() && look().roles ? look().roles[role] : null;
  el.textContent = info ? info.letter : (role ? role[0] : "?");
  el.style.background = info ? info.color : "#777";
  el.title = role ? t(`roles.${role}`) || role : t("secrets");
  $("#btn-secrets").setAttribute("aria-label", el.title);
}

function icon(kind, label) {
  try { return toolIconSvg(kind, false, { look: look(), size: "20px", label }); } catch (e) { return esc(kind[0]); }
}

function renderPlayers(v) {
  const me = mine(v);
  const html = (v.seats || []).map((s) => {
    const turn = v.current_seat === s.seat && (v.status === "playing" || v.status === "stealing");
    const icons = (s.in_front || []).map((k) => icon(k, t(`actions.${k}`) || k)).join("");
    const roleName = s.role ? t(`roles.${s.role}`) || s.role : "";
    const role = s.role ? `<span class="role" title="${esc(roleName)}" style="color:${((look() || {}).roles || {})[s.role]?.color || "inherit"}">${esc(roleName)}</span>` : "";
    const gold = s.gold !== null && s.gold !== undefined ? `<span class="gold">${GLYPH.gold}${s.gold}</span>` : (s.has_gold ? `<span class="gold" title="${esc(t("hasGold"))}">${GLYPH.gold}</span>` : "");
    const you = s.seat === me && !isYouWord(s.name) ? ` (${esc(t("you"))})` : "";
    return `<div class="seat${turn ? " turn" : ""}${s.seat === me ? " me" : ""}" data-seat="${s.seat}">
      <div class="name">${s.computer ? `<span title="${esc(t("computer"))}">${GLYPH.robot}</span> ` : ""}${esc(displayName(s))}${you}</div>
      <div class="meta"><span class="hs" title="${esc(t("cards", { n: s.hand_size }))}">${GLYPH.cards}${s.hand_size ?? 0}</span>${gold}<span class="icons">${icons}</span>${s.online === false && !s.computer ? `<span class="off">${esc(t("offline"))}</span>` : ""}</div>
      ${role}${turn && v.turn_deadline ? `<span class="clock" data-deadline="${esc(v.turn_deadline)}" data-total="${(v.settings && v.settings.turn_time) || 0}"><svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true"><circle cx="10" cy="10" r="8" fill="none" stroke="var(--bg)" stroke-width="3"/><circle class="ring" cx="10" cy="10" r="8" fill="none" stroke="var(--turn)" stroke-width="3" stroke-dasharray="50.3" transform="rotate(-90 10 10)"/></svg><b></b></span>` : ""}</div>`;
  }).join("");
  const strip = $("#players");
  strip.innerHTML = html;
  strip.classList.toggle("many", (v.seats || []).length > 6);
  const last = S().last;
  if (last && !S().replay) {
    const chip = strip.querySelector(`[data-seat="${last.entry.seat}"]`);
    if (chip) { chip.classList.add("acted"); chip.style.animationDelay = `-${Date.now() - last.at}ms`; }
  }
  showTurn(strip);
  tick();
}

// Whose turn it is is always on screen: the strip scrolls to the current seat's chip.
function showTurn(strip) {
  const chip = strip.querySelector(".seat.turn");
  if (!chip) return;
  const left = chip.offsetLeft - strip.offsetLeft, right = left + chip.offsetWidth;
  if (left >= strip.scrollLeft && right <= strip.scrollLeft + strip.clientWidth) return;
  const to = Math.max(0, left - (strip.clientWidth - chip.offsetWidth) / 2);
  strip.scrollTo({ left: to, behavior: "smooth" });
}

function tick() {
  for (const el of document.querySelectorAll(".clock[data-deadline]")) {
    const d = Date.parse(el.dataset.deadline);
    const label = el.querySelector("b");
    if (!d || !label) continue;
    const left = Math.max(0, Math.round((d - Date.now()) / 1000));
    label.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    const total = Number(el.dataset.total) || 0;
    const ring = el.querySelector(".ring");
    if (ring) ring.setAttribute("stroke-dashoffset", total ? String(50.3 * (1 - Math.min(1, left / total))) : "0");
  }
}
setInterval(tick, 1000);

function cardTile(id, card) {
  const entry = cat(card);
  const L = look();
  let inner = "";
  if (L && entry.category !== "action" && (entry.groups || []).length) {
    try { inner = cardSvg(entry, { look: L, x: 0, y: 0, w: 100, h: 150 }); } catch (e) { inner = ""; }
  } else if (L) {
    inner = actionFace(L, entry);
  }
  return `<svg viewBox="0 0 100 150" aria-hidden="true">${inner}</svg>`;
}

function renderHand(v) {
  const hand = (v.you && v.you.hand) || [];
  const st = S();
  $("#hand").innerHTML = hand.map((c) => {
    const playable = st.discard ? true : app.movesOf(c.id).length > 0;
    const sel = st.discard ? st.picked.includes(c.id) : st.sel === c.id;
    const name = t(`cards.${c.card}`) || c.card;
    const turned = sel && !st.discard && st.rotated ? " turned" : "";
    return `<button class="hcard${playable ? "" : " dim"}${sel ? " sel" : ""}${turned}" type="button" data-id="${esc(c.id)}" data-card="${esc(c.card)}" aria-pressed="${sel}" aria-label="${esc(name)}">${cardTile(c.id, c.card)}</button>`;
  }).join("");
  for (const b of document.querySelectorAll("#hand .hcard")) b.onclick = () => app.selectCard(b.dataset.id);
  handHint();
}

// A hand wider than the screen says so: a "more" arrow at the edge while cards are hidden.
function handHint() {
  const h = $("#hand");
  $("#hand-more").hidden = !(h.scrollWidth > h.scrollLeft + h.clientWidth + 4);
}
document.addEventListener("DOMContentLoaded", () => {
  const h = $("#hand");
  if (h) h.addEventListener("scroll", handHint, { passive: true });
  window.addEventListener("resize", handHint);
});

// Why a card in hand cannot be played now, in the engine's words: a broken tool or a trap
// stops path cards; else nothing is to be done with it.
function whyNot(v, id) {
  const card = ((v.you && v.you.hand) || []).find((c) => c.id === id);
  const entry = card ? cat(card.card) : null;
  const seat = (v.seats || []).find((s) => s.seat === mine(v));
  const front = (seat && seat.in_front) || [];
  let reason = null;
  if (entry && entry.category !== "action") {
    if (front.some((k) => /TRAP/.test(String(k)))) reason = t("reasons.trapped");
    else if (front.some((k) => /^BREAK_/.test(String(k)) || /^(pickaxe|lantern|cart)$/.test(String(k)))) reason = t("reasons.tool_broken");
  }
  return reason ? reason.charAt(0).toUpperCase() + reason.slice(1) : t("noMoves");
}

// --- action bar -----------------------------------------------------------------------------

function moveLabel(v, m) {
  const target = m.target_seat !== undefined && m.target_seat !== null ? seatName(v, m.target_seat) : "";
  const card = m.card ? (v.you.hand || []).find((c) => c.id === m.card) : null;
  const cardName = card ? t(`actions.${card.card}`) || card.card : "";
  if (m.type === "repair_tool") return t("moves.repair_tool", { tool: t(m.tool), target });
  if (m.type === "map") return t("moves.map", { goal: m.goal + 1 });
  return t(`moves.${m.type}`, { target, card: cardName }) || m.type;
}

function cardName(v, id) {
  const card = ((v.you && v.you.hand) || []).find((c) => c.id === id);
  return card ? t(`actions.${card.card}`) || "" : "";
}

function button(label, fn, cls = "", attrs = "") {
  return [label, fn, cls, attrs];
}

function renderBar(v) {
  const st = S();
  const legal = v.legal_moves || [];
  const me = mine(v);
  const items = [];
  let prompt = "";
  let promptTurn = false;
  const pend = app.pending();
  if (v.status === "cancelled") {
    prompt = t("cancelled");
    if (st.local) items.push(button(t("newGame"), () => lobbySheet(), "primary", 'data-act="new-game"'));
  } else if (st.replay) {
    prompt = t("replayStep", { i: st.replay.i, n: st.replay.steps.length - 1 });
    items.push(button(t("prev"), () => replayStep(-1), "", 'data-act="prev"'));
    items.push(button(t("next"), () => replayStep(1), "primary", 'data-act="next"'));
    items.push(button(t("close"), () => stopReplay(), "", 'data-act="close-replay"'));
  } else if (v.status === "lobby") {
    const max = (v.settings && v.settings.max_seats) || (v.seats || []).length;
    prompt = `${t("lobby")} · ${t("waitingPlayers", { n: (v.seats || []).length, max })}`;
    if (me === null) items.push(button(t("join"), () => app.lobbyAction("join"), "primary", 'data-act="join"'));
    else {
      if (v.you && v.you.creator) items.push(button(t("start"), () => app.lobbyAction("start"), "primary", 'data-act="start"'));
      else prompt += ` · ${t("creatorStarts")}`;
      items.push(button(t("leave"), () => app.lobbyAction("leave"), "", 'data-act="leave"'));
    }
    items.push(button(t("settingsTitle"), () => lobbySettings(), "", 'data-act="settings"'));
  } else if (v.status === "round_over" || v.status === "finished") {
    prompt = v.status === "finished" ? t("gameOver") : t("roundOver");
    const next = legal.find((m) => m.type === "next_round");
    if (next) items.push(button(t("nextRound"), () => app.send(next), "primary", 'data-act="next-round"'));
    else if (v.status === "round_over") prompt = t("ready");
    items.push(button(t("replay"), () => startReplay(), "", 'data-act="replay"'));
    items.push(button(t("roundOver"), () => roundEnd(v), "", 'data-act="results"'));
    if (v.status === "finished" && st.local) items.push(button(t("newGame"), () => lobbySheet(), "primary", 'data-act="new-game"'));
  } else if (v.status === "stealing" && legal.some((m) => m.type === "steal")) {
    prompt = t("stealPrompt");
    promptTurn = true;
    for (const m of legal.filter((mm) => mm.type === "steal")) {
      const label = m.target_seat === null ? t("stealNobody") : t("steal", { name: seatName(v, m.target_seat) });
      items.push(button(label, () => app.send(m), "primary", `data-act="steal"`));
    }
  } else if (me === null) {
    prompt = t("spectator");
  } else if (!legal.length) {
    prompt = v.current_seat !== null && v.current_seat !== undefined ? t("turnOf", { name: seatName(v, v.current_seat) }) : t("waiting");
  } else {
    promptTurn = true;
    const take = legal.find((m) => m.type === "take_seat_back");
    if (take) items.push(button(t("takeBack"), () => app.send(take), "primary", 'data-act="take-back"'));
    if (st.discard) {
      const most = app.maxDiscard();
      prompt = most > 1 ? t("pickDiscard", { max: most }) : t("pickDiscard1");
      const picked = [...st.picked].sort();
      if (picked.length === 2) {
        for (const m of legal.filter((mm) => mm.type === "discard_to_remove" && JSON.stringify([...mm.cards].sort()) === JSON.stringify(picked))) {
          items.push(button(t("removeWith2", { what: t(`actions.${m.remove}`) || m.remove }), () => app.choose(m),
            st.choice && JSON.stringify(st.choice) === JSON.stringify(m) ? "on" : "", 'data-act="remove"'));
        }
      }
      items.push(button(t("cancel"), () => app.toggleDiscard(), "", 'data-act="cancel"'));
    } else if (st.sel) {
      const moves = app.movesOf(st.sel);
      const kind = moves.length ? moves[0].type : null;
      const here = kind === "place_path" && st.cell ? moves.filter((m) => m.x === st.cell[0] && m.y === st.cell[1]) : [];
      if (kind === "place_path") prompt = !st.cell ? t("pickCell") : here.length > 1 ? t("pickAgain") : t("table.pickConfirm");
      else if (kind === "rockfall") prompt = t("pickCard");
      else if (kind === "map") prompt = t("pickGoal");
      else if (kind === "theft") prompt = moveLabel(v, moves[0]);
      else if (kind) {
        prompt = `${cardName(v, st.sel)}: ${t("pickTarget")}`;
        for (const m of moves) {
          const on = st.choice && JSON.stringify(st.choice) === JSON.stringify(m);
          items.push(button(moveLabel(v, m), () => app.choose(m), on ? "on" : "", `data-act="target" data-target="${m.target_seat}"${m.tool ? ` data-tool="${m.tool}"` : ""}`));
        }
      } else prompt = whyNot(v, st.sel);
      if (kind === "place_path" && st.cell && moves.filter((m) => m.x === st.cell[0] && m.y === st.cell[1]).length > 1) {
        items.push(button(t("rotate"), () => { st.rotated = !st.rotated; app.render(); }, "", 'data-act="rotate"'));
      }
      items.push(button(t("cancel"), () => { app.resetChoice(); app.render(); }, "", 'data-act="cancel"'));
    } else {
      prompt = t("yourTurn");
    }
    if (!st.discard && legal.some((m) => m.type === "discard")) items.push(button(t("discard"), () => app.toggleDiscard(), "", 'data-act="discard"'));
  }
  const el = $("#prompt");
  el.textContent = prompt;
  el.className = promptTurn ? "turn" : "";
  // the confirm action: Telegram's MainButton inside Telegram, a plain button outside
  let confirmText = null;
  if (pend && !st.replay) {
    confirmText = pend.type === "place_path" ? t("place") : pend.type === "discard" ? t("discardN", { n: pend.cards.length }) : t("play");
  }
  const usedMain = tg.mainButton(confirmText, () => app.send(app.pending()));
  if (confirmText && !usedMain) items.unshift(button(confirmText, () => app.send(app.pending()), "primary", 'id="confirm" data-act="confirm"'));
  const box = $("#buttons");
  box.innerHTML = items.map(([label, , cls, attrs], i) => `<button type="button" class="${cls}" data-i="${i}" ${attrs}>${esc(label)}</button>`).join("");
  for (const b of box.querySelectorAll("button")) b.onclick = () => items[Number(b.dataset.i)][1]();
}

// Every cell the reader could play on this turn (any card): what the board frames when
// their turn starts.
export function playableCells() {
  const v = S().view;
  const cells = new Map();
  // [x, y, rank]: paths first (the turn's main play), then rockfalls, then goals to look at
  const RANK = { place_path: 0, rockfall: 1, map: 2 };
  for (const m of (v && v.legal_moves) || []) {
    if (!(m.type in RANK)) continue;
    const g = m.type === "map" ? (v.goals || []).find((gg) => gg.goal === m.goal) : m;
    const key = g ? `${g.x},${g.y}` : null;
    if (g && g.x !== undefined && (!cells.has(key) || cells.get(key)[2] > RANK[m.type])) cells.set(key, [g.x, g.y, RANK[m.type]]);
  }
  return [...cells.values()];
}

export function boardMarks() {
  const st = S();
  const v = st.view;
  const marks = {};
  const rr = v.round_result;
  if (rr && rr.route && (v.status === "round_over" || v.status === "finished")) marks.route = rr.route;
  marks.peekLabel = (gold) => t(gold ? "goldKind" : "stoneKind");
  const mark = st.last ? boardMark(st.last.entry) : null;
  if (mark) marks.last = { ...mark, age: Date.now() - st.last.at };
  if (!st.sel || st.discard) return marks;
  const moves = app.movesOf(st.sel);
  const kind = moves.length ? moves[0].type : null;
  const uniq = (list) => [...new Map(list.map((c) => [c.join(","), c])).values()];
  if (kind === "place_path") {
    marks.cells = uniq(moves.map((m) => [m.x, m.y]));
    if (st.cell) {
      marks.selected = st.cell;
      const card = (v.you.hand || []).find((c) => c.id === st.sel);
      marks.ghost = { x: st.cell[0], y: st.cell[1], card: card.card, rotated: st.rotated };
    }
  } else if (kind === "rockfall") {
    marks.cardTargets = uniq(moves.map((m) => [m.x, m.y]));
    marks.selected = st.cell;
  } else if (kind === "map") {
    marks.goalTargets = moves.map((m) => m.goal);
    marks.selectedGoal = st.goal;
  }
  return marks;
}

