// Everything around the maze: players strip, hand tray, action bar, sheets (log, secrets,
// round end, replay, lobby), toasts. Reads the state of app.js; changes it only via app.js.
import * as app from "./app.js";
import * as api from "./api.js";
import { cardSvg, toolIconSvg } from "./cards.js";
import { t } from "./i18n.js";
import { actionFace, esc, GLYPH } from "./icons.js";
import * as tg from "./tg.js";

const $ = (sel) => document.querySelector(sel);
const S = () => app.S;
const look = () => S().catalogue.look;
const cat = (id) => (S().catalogue.cards || {})[id] || { id, groups: [] };
const seatName = (v, s) => {
  const seat = (v.seats || []).find((x) => x.seat === s);
  return seat ? (seat.name || `#${s + 1}`) : (s === null || s === undefined ? "" : `#${s + 1}`);
};
const mine = (v) => (v.you ? v.you.seat : null);

// --- static chrome ----------------------------------------------------------------------

export function renderStatic() {
  $("#title").textContent = t("title");
  document.title = t("title");
  const sel = $("#lang");
  sel.innerHTML = Object.entries(app.LANGS).map(([code, [name]]) =>
    `<option value="${code}"${code === app.language() ? " selected" : ""}>${name}</option>`).join("");
  sel.onchange = () => app.setLang(sel.value);
  $("#btn-log").onclick = () => showLog();
  $("#btn-secrets").onclick = () => showSecrets();
  $("#btn-fit").onclick = () => app.fit();
  $("#btn-log").innerHTML = GLYPH.log;
  $("#btn-fit").innerHTML = GLYPH.fit;
  $("#zoom-in").onclick = () => app.zoom(0.8);
  $("#zoom-out").onclick = () => app.zoom(1.25);
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
    const role = s.role ? `<span class="role" style="color:${((look() || {}).roles || {})[s.role]?.color || "inherit"}">${esc(t(`roles.${s.role}`) || s.role)}</span>` : "";
    const gold = s.gold !== null && s.gold !== undefined ? `<span class="gold">${GLYPH.gold}${s.gold}</span>` : (s.has_gold ? `<span class="gold" title="${esc(t("hasGold"))}">${GLYPH.gold}</span>` : "");
    const you = s.seat === me && String(s.name || "").toLowerCase() !== String(t("you")).toLowerCase() ? ` (${esc(t("you"))})` : "";
    return `<div class="seat${turn ? " turn" : ""}${s.seat === me ? " me" : ""}" data-seat="${s.seat}">
      <div class="name">${s.computer ? `<span title="${esc(t("computer"))}">${GLYPH.robot}</span> ` : ""}${esc(s.name || `#${s.seat + 1}`)}${you}</div>
      <div class="meta"><span class="hs" title="${esc(t("cards", { n: s.hand_size }))}">${GLYPH.cards}${s.hand_size ?? 0}</span>${gold}<span class="icons">${icons}</span>${s.online === false && !s.computer ? `<span class="off">${esc(t("offline"))}</span>` : ""}</div>
      ${role}${turn && v.turn_deadline ? `<span class="clock" data-deadline="${esc(v.turn_deadline)}" data-total="${(v.settings && v.settings.turn_time) || 0}"><svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true"><circle cx="10" cy="10" r="8" fill="none" stroke="var(--bg)" stroke-width="3"/><circle class="ring" cx="10" cy="10" r="8" fill="none" stroke="var(--turn)" stroke-width="3" stroke-dasharray="50.3" transform="rotate(-90 10 10)"/></svg><b></b></span>` : ""}</div>`;
  }).join("");
  $("#players").innerHTML = html;
  tick();
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
    const name = t(`actions.${c.card}`) || c.card;
    return `<button class="hcard${playable ? "" : " dim"}${sel ? " sel" : ""}" type="button" data-id="${esc(c.id)}" data-card="${esc(c.card)}" aria-pressed="${sel}" aria-label="${esc(name)}">${cardTile(c.id, c.card)}</button>`;
  }).join("");
  for (const b of document.querySelectorAll("#hand .hcard")) b.onclick = () => app.selectCard(b.dataset.id);
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
      prompt = t("pickDiscard", { max: app.maxDiscard() });
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
      if (kind === "place_path") prompt = st.cell ? t("pickAgain") : t("pickCell");
      else if (kind === "rockfall") prompt = t("pickCard");
      else if (kind === "map") prompt = t("pickGoal");
      else if (kind === "theft") prompt = moveLabel(v, moves[0]);
      else if (kind) {
        prompt = `${cardName(v, st.sel)}: ${t("pickTarget")}`;
        for (const m of moves) {
          const on = st.choice && JSON.stringify(st.choice) === JSON.stringify(m);
          items.push(button(moveLabel(v, m), () => app.choose(m), on ? "on" : "", `data-act="target" data-target="${m.target_seat}"${m.tool ? ` data-tool="${m.tool}"` : ""}`));
        }
      } else prompt = t("noMoves");
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

export function boardMarks() {
  const st = S();
  const v = st.view;
  const marks = {};
  const rr = v.round_result;
  if (rr && rr.route && (v.status === "round_over" || v.status === "finished")) marks.route = rr.route;
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

// --- sheets -----------------------------------------------------------------------------------

export function openSheet(html, bind) {
  $("#sheet").innerHTML = html;
  $("#overlay").hidden = false;
  $("#overlay").onclick = (e) => { if (e.target.id === "overlay") closeOverlay(); };
  tg.backButton(closeOverlay);
  if (bind) bind($("#sheet"));
}

export function closeOverlay() {
  $("#overlay").hidden = true;
  $("#sheet").innerHTML = "";
  tg.backButton(null);
}

function logText(v, e) {
  const p = { ...e, who: seatName(v, e.seat), target: seatName(v, e.target_seat), tool: e.tool ? t(e.tool) : "",
    goal: e.goal !== undefined && e.goal !== null ? e.goal + 1 : "", n: e.count ?? (e.cards ? e.cards.length : ""),
    kind: e.kind ? t(e.kind === "gold" ? "goldKind" : "stoneKind") : "", remove: e.remove ? t(`actions.${e.remove}`) || e.remove : "" };
  const text = t(`logc.${e.code}`, p) || `${p.who} ${e.code}`;
  return e.timeout ? `${text} ${t("timedOut")}` : text;
}

export function showLog() {
  const v = S().view;
  if (!v) return;
  const items = [...(v.log || [])].reverse().map((e) => `<li><span class="v">${e.version ?? ""}</span>${esc(logText(v, e))}</li>`).join("");
  openSheet(`<h2>${esc(t("log"))}</h2><ul class="log" id="log-list">${items}</ul><div class="actions"><button type="button" data-close>${esc(t("close"))}</button></div>`,
    (el) => { el.querySelector("[data-close]").onclick = closeOverlay; });
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
  (el) => { el.querySelector("[data-close]").onclick = closeOverlay; });
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
  (el) => { el.querySelector("[data-close]").onclick = closeOverlay; });
}

export function roundEnd(v) {
  const rr = v.round_result || {};
  const finished = v.status === "finished";
  const winners = rr.winners ? (Array.isArray(rr.winners) ? rr.winners : [rr.winners]).map((w) => t(`win.${w}`) || w).join(", ") : "";
  const won = new Set(rr.winning_seats || []);
  const final = v.final && Array.isArray(v.final.gold) ? v.final.gold : null;
  const seats = [...(v.seats || [])];
  if (finished && final) seats.sort((a, b) => (final[b.seat] ?? 0) - (final[a.seat] ?? 0));
  const rows = seats.map((s) => {
    const r = s.role || (rr.roles ? rr.roles[s.seat] : null);
    const roleName = r ? t(`roles.${r}`) || r : "";
    const info = r && look() ? (look().roles || {})[r] : null;
    const gain = rr.winnings && rr.winnings[s.seat] ? `<span>+${rr.winnings[s.seat]}</span>` : "";
    const total = finished && final ? `<b class="gold">${GLYPH.gold} ${final[s.seat] ?? 0}</b>` : "";
    return `<div class="row${won.has(s.seat) ? " won" : ""}" data-seat-result="${s.seat}">
      <span class="badge" style="background:${info ? info.color : "#777"}">${info ? info.letter : "?"}</span>
      <span class="grow">${esc(s.name || `#${s.seat + 1}`)}${won.has(s.seat) ? " ★" : ""}</span><span>${esc(roleName)}</span>${gain}${total}</div>`;
  });
  const reached = rr.reached_by !== null && rr.reached_by !== undefined ? `<p>${esc(t("goldRoute"))}: ${esc(seatName(v, rr.reached_by))}</p>` : "";
  const mineWon = rr.your_winnings !== undefined && rr.your_winnings !== null ? `<p id="winnings"><b>${esc(t("yourWinnings", { n: rr.your_winnings }))}</b></p>` : "";
  const next = (v.legal_moves || []).find((m) => m.type === "next_round");
  openSheet(`<h2 id="result-title">${esc(finished ? t("gameOver") : t("roundOver"))}</h2>
    ${winners ? `<p id="winners">${esc(t("winners", { who: winners }))}</p>` : ""}${reached}${mineWon}
    ${finished ? `<h3>${esc(t("finalScores"))}</h3>` : ""}${rows.join("")}
    <div class="actions">${next ? `<button type="button" class="primary" data-next>${esc(t("nextRound"))}</button>` : ""}
    <button type="button" data-replay>${esc(t("replay"))}</button>
    ${finished && S().local ? `<button type="button" class="primary" data-new>${esc(t("newGame"))}</button>` : ""}
    <button type="button" data-close>${esc(t("close"))}</button></div>`,
  (el) => {
    el.querySelector("[data-close]").onclick = closeOverlay;
    el.querySelector("[data-replay]").onclick = () => { closeOverlay(); startReplay(); };
    const n = el.querySelector("[data-next]");
    if (n) n.onclick = () => { closeOverlay(); app.send(next); };
    const ng = el.querySelector("[data-new]");
    if (ng) ng.onclick = () => lobbySheet();
  });
}

// --- replay of the round, from the public log --------------------------------------------------

function applyEntry(board, e) {
  const key = (x, y) => `${x},${y}`;
  if ((e.code === "path_placed" || e.code === "goal_revealed") && e.card && e.x !== undefined) {
    board.set(key(e.x, e.y), { x: e.x, y: e.y, card: e.card, rotated: !!e.rotated });
  } else if ((e.code === "rockfall" || e.code === "path_removed") && e.x !== undefined) {
    board.delete(key(e.x, e.y));
  }
}

export async function startReplay() {
  const st = S();
  const v = st.view;
  let entries = [];
  try { entries = (await api.getLog(st.gameId, 0)).entries || []; } catch (e) { toast(t("error")); return; }
  let from = 0;
  entries.forEach((e, i) => { if (e.code === "round_started" && (e.round === undefined || e.round <= v.round)) from = i; });
  entries = entries.slice(from);
  const start = (v.board || []).filter((c) => cat(c.card).category === "start");
  const steps = [new Map(start.map((c) => [`${c.x},${c.y}`, c]))];
  for (const e of entries) {
    const next = new Map(steps[steps.length - 1]);
    applyEntry(next, e);
    steps.push(next);
  }
  st.replay = { entries, steps, i: 0, view: null };
  replayStep(0);
}

export function replayMarks() { return {}; }

function replayStep(d) {
  const st = S();
  const r = st.replay;
  if (!r) return;
  r.i = Math.max(0, Math.min(r.steps.length - 1, r.i + d));
  const v = st.view;
  const board = [...r.steps[r.i].values()];
  const revealed = new Set(board.map((c) => `${c.x},${c.y}`));
  r.view = { ...v, board, goals: (v.goals || []).map((g) => ({ ...g, revealed: revealed.has(`${g.x},${g.y}`) })), you: { ...v.you, known_goals: [] } };
  app.render();
  const e = r.entries[r.i - 1];
  if (e) $("#prompt").textContent = `${t("replayStep", { i: r.i, n: r.steps.length - 1 })}: ${logText(v, e)}`;
}

function stopReplay() {
  S().replay = null;
  app.render();
}

// --- lobby (local mode) and "no game" --------------------------------------------------------

export function lobbySheet() {
  const opts = (lo, hi, dflt) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i).map((n) => `<option${n === dflt ? " selected" : ""}>${n}</option>`).join("");
  openSheet(`<h2>${esc(t("newGame"))}</h2>
    <label>${esc(t("edition"))}<select id="ng-edition"><option value="classic">${esc(t("classic"))}</option><option value="expansion">${esc(t("expansion"))}</option></select></label>
    <label>${esc(t("seats"))}<select id="ng-seats">${opts(3, 10, 5)}</select></label>
    <div class="actions"><button type="button" class="primary" id="ng-start">${esc(t("start"))}</button><button type="button" data-close>${esc(t("close"))}</button></div>`,
  (el) => {
    const ed = el.querySelector("#ng-edition");
    const seats = el.querySelector("#ng-seats");
    ed.onchange = () => { seats.innerHTML = ed.value === "classic" ? opts(3, 10, 5) : opts(2, 12, 5); };
    el.querySelector("#ng-start").onclick = () => app.newGame(ed.value, Number(seats.value));
    el.querySelector("[data-close]").onclick = closeOverlay;
  });
}

export async function noGame() {
  if (S().local) {
    message(t("newGame"), [[t("newGame"), () => { $("#message").hidden = true; lobbySheet(); }]]);
    return;
  }
  let games = [];
  try { games = (await api.myGames()).games || []; } catch (e) { games = []; }
  if (!games.length) { message(t("noGame")); return; }
  message(t("yourGames"), games.map((g) => [typeof g === "string" ? g : g.game_id, () => app.openGame(typeof g === "string" ? g : g.game_id)]));
}
