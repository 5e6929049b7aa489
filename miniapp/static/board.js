// The maze as SVG: cards from cards.js (shared look), targets that glow, a ghost card,
// pan with one finger, pinch-zoom with two, wheel zoom; taps reported to the app.
import { cellName } from "./cells.js";
import { t } from "./i18n.js";
import * as tg from "./tg.js";

let C = {};
export async function loadCards() {
  try { C = await import("./cards.js"); } catch (e) { C = {}; }
}

const NS = "http://www.w3.org/2000/svg";
const DEFAULT_LOOK = { card: { w: 100, h: 150, gap: 6, radius: 7, band_w: 34 },
  colours: { rock: "#4a3b33", earth: "#d9a764", rock_edge: "#2a211c", empty_outline: "#6e625a",
             legal_glow: "#7cf29a", route: "#ffd54a", goal_back: "#2d4a6b", goal_mark: "#e8c547" } };
const EDGE = { N: [0.5, 0], E: [1, 0.5], S: [0.5, 1], W: [0, 0.5] };
const FLIP = { N: "S", S: "N", E: "W", W: "E" };
const INSET = 6; // a target's inset in its cell: neighbouring targets never touch
// The smallest width, in CSS px, of a lit target when the board frames what can be played
// (LOOK.md: 44 px on a 390-px phone, 40 px at 320; a little above both).
export const minTargetPx = (width) => (width < 360 ? 42 : 46);

function fallbackCard(card, o) {
  const k = o.look.colours;
  let s = `<g><rect x="${o.x}" y="${o.y}" width="${o.w}" height="${o.h}" rx="6" fill="${k.rock}" stroke="${k.rock_edge}" stroke-width="3"/>`;
  const cx = o.x + o.w / 2, cy = o.y + o.h / 2;
  for (const g of card.groups || []) {
    for (const e0 of String(g)) {
      const e = o.rotated ? FLIP[e0] : e0;
      const [fx, fy] = EDGE[e];
      const ex = o.x + fx * o.w, ey = o.y + fy * o.h;
      const end = g.length > 1 ? [cx, cy] : [ex + (cx - ex) * 0.4, ey + (cy - ey) * 0.4];
      s += `<line x1="${ex}" y1="${ey}" x2="${end[0]}" y2="${end[1]}" stroke="${k.earth}" stroke-width="${o.w * 0.3}"/>`;
    }
  }
  return s + "</g>";
}

function safe(fn, fallback, ...args) {
  if (typeof fn === "function") {
    try { const out = fn(...args); if (typeof out === "string") return out; } catch (e) { /* draw the fallback */ }
  }
  return fallback(...args);
}

export class Board {
  constructor(svg, { onTap }) {
    this.svg = svg;
    this.onTap = onTap;
    this.look = DEFAULT_LOOK;
    this.cards = {};
    this.vb = null;
    this.pointers = new Map();
    this.fitted = false;
    this.moved = false; // panned or zoomed by the player since the last fit
    this.intent = "whole"; // what the untouched view shows: the whole maze, or "targets"
    this.framed = null; // the cells framed when the intent is "targets"
    this.wholeKey = null; // the whole maze's bounds when last fitted
    this._bind();
    // markers at the board's edge for goals out of view: a tap shows the whole maze
    this.edge = document.createElement("div");
    this.edge.className = "goal-edge";
    svg.insertAdjacentElement("afterend", this.edge);
    this.edge.addEventListener("click", (e) => { if (e.target.closest("[data-edge-goal]")) this.fit(); });
    if (typeof ResizeObserver === "function") new ResizeObserver(() => this._resized()).observe(svg);
  }

  setCatalogue(cat) {
    this.cards = cat.cards || {};
    if (cat.look) this.look = cat.look;
  }

  get pitch() {
    const c = this.look.card;
    return [c.w + c.gap, c.h + c.gap];
  }

  cardMarkup(id, x, y, rotated, highlight) {
    const [px, py] = this.pitch;
    const entry = this.cards[id] || { id, groups: [] };
    const o = { rotated: !!rotated, look: this.look, x: x * px, y: y * py, w: this.look.card.w, h: this.look.card.h, highlight: highlight || false };
    return safe(C.cardSvg, fallbackCard, entry, o);
  }

  goalBack(x, y, highlight) {
    const [px, py] = this.pitch;
    const o = { look: this.look, x: x * px, y: y * py, w: this.look.card.w, h: this.look.card.h, highlight: !!highlight };
    return safe(C.goalBackSvg, (oo) => `<rect x="${oo.x}" y="${oo.y}" width="${oo.w}" height="${oo.h}" rx="6" fill="${this.look.colours.goal_back}"/><text x="${oo.x + oo.w / 2}" y="${oo.y + oo.h / 2 + 14}" font-size="48" text-anchor="middle" fill="${this.look.colours.goal_mark}">?</text>`, o);
  }

  emptyCell(x, y) {
    const [px, py] = this.pitch;
    const o = { look: this.look, x: x * px, y: y * py, w: this.look.card.w, h: this.look.card.h };
    return safe(C.emptyCellSvg, (oo) => `<rect x="${oo.x + 2}" y="${oo.y + 2}" width="${oo.w - 4}" height="${oo.h - 4}" rx="6" fill="none" stroke="${this.look.colours.empty_outline}" stroke-dasharray="6 6" stroke-width="2"/>`, o);
  }

  // Cells to frame at open: start, goals, every card, every target.
  bounds(view, marks) {
    let x0 = 0, x1 = 8, y0 = -2, y1 = 2;
    const add = (x, y) => { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); };
    for (const c of view.board || []) add(c.x, c.y);
    for (const g of view.goals || []) add(g.x, g.y);
    for (const [x, y] of (marks && marks.cells) || []) add(x, y);
    for (const [x, y] of (marks && marks.cardTargets) || []) add(x, y);
    return { x0, x1, y0, y1 };
  }

  render(view, marks = {}) {
    this.view = view;
    this.marks = marks;
    const [px, py] = this.pitch;
    const { w, h } = this.look.card;
    const occupied = new Set((view.board || []).map((c) => `${c.x},${c.y}`));
    const goalCells = new Map((view.goals || []).map((g) => [`${g.x},${g.y}`, g]));
    const route = new Set(((marks.route) || []).map(([x, y]) => `${x},${y}`));
    const parts = [];
    // faint outlines where a card could go: empty cells next to a placed card
    const empty = new Set();
    for (const c of view.board || []) {
      for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
        const k = `${c.x + dx},${c.y + dy}`;
        if (!occupied.has(k) && !goalCells.has(k)) empty.add(k);
      }
    }
    for (const k of empty) {
      const [x, y] = k.split(",").map(Number);
      parts.push(this.emptyCell(x, y));
      // the cell's name, as the group picture and the log write it
      parts.push(`<text class="cell-name" x="${x * px + w / 2}" y="${y * py + h / 2 + 8}" font-size="24" text-anchor="middle">${cellName(x, y)}</text>`);
    }
    const last = marks.last;
    if (last && last.kind === "removed" && last.card && !occupied.has(`${last.x},${last.y}`)) {
      parts.push(`<g class="removed-card" style="animation-delay:-${last.age || 0}ms">${this.cardMarkup(last.card, last.x, last.y, last.rotated)}</g>`);
    }
    for (const c of view.board || []) {
      parts.push(`<g class="card" data-card-cell="${c.x},${c.y}">${this.cardMarkup(c.card, c.x, c.y, c.rotated, route.has(`${c.x},${c.y}`))}</g>`);
    }
    const known = new Map(((view.you && view.you.known_goals) || []).map((g) => [g.goal, g.kind]));
    for (const g of view.goals || []) {
      if (g.revealed || occupied.has(`${g.x},${g.y}`)) continue;
      parts.push(`<g class="goal" data-goal="${g.goal}">${this.goalBack(g.x, g.y, false)}`);
      if (known.has(g.goal)) {
        const gold = known.get(g.goal) === "gold";
        // a pill in the reader's language; _apply keeps its text at least 12 px on screen
        const cx = g.x * px + w / 2, cy = g.y * py + h - 30;
        const label = (marks.peekLabel && marks.peekLabel(gold)) || (gold ? "★" : "✕");
        parts.push(`<g class="peek peek-${gold ? "gold" : "stone"}" data-cx="${cx}" data-cy="${cy}"><rect x="${cx - 46}" y="${cy - 20}" width="92" height="40" rx="20" fill="${gold ? "#ffcc33" : "#9a9a9a"}" stroke="#000" stroke-width="2"/><text x="${cx}" y="${cy + 9}" font-size="26" font-weight="700" text-anchor="middle" fill="#1a1a1a">${label}</text></g>`);
      }
      parts.push("</g>");
    }
    // targets of the selected card
    const glow = this.look.colours.legal_glow || "#7cf29a";
    for (const [x, y] of marks.cells || []) {
      const sel = marks.selected && marks.selected[0] === x && marks.selected[1] === y;
      parts.push(`<rect class="target${sel ? " selected" : ""}" data-cell="${x},${y}" x="${x * px + INSET}" y="${y * py + INSET}" width="${w - 2 * INSET}" height="${h - 2 * INSET}" rx="8" fill="${glow}" fill-opacity="0.25" stroke="${glow}" stroke-width="5"/>`);
    }
    for (const [x, y] of marks.cardTargets || []) {
      const sel = marks.selected && marks.selected[0] === x && marks.selected[1] === y;
      parts.push(`<rect class="target card-target${sel ? " selected" : ""}" data-cell="${x},${y}" x="${x * px + INSET}" y="${y * py + INSET}" width="${w - 2 * INSET}" height="${h - 2 * INSET}" rx="8" fill="#ff5252" fill-opacity="${sel ? 0.45 : 0.15}" stroke="#ff5252" stroke-width="5"/>`);
    }
    for (const gi of marks.goalTargets || []) {
      const g = (view.goals || []).find((gg) => gg.goal === gi);
      if (!g) continue;
      const sel = marks.selectedGoal === gi;
      parts.push(`<rect class="target goal-target${sel ? " selected" : ""}" data-goal="${gi}" x="${g.x * px + INSET}" y="${g.y * py + INSET}" width="${w - 2 * INSET}" height="${h - 2 * INSET}" rx="8" fill="${glow}" fill-opacity="${sel ? 0.45 : 0.2}" stroke="${glow}" stroke-width="5"/>`);
    }
    if (marks.ghost) {
      const gh = marks.ghost;
      parts.push(`<g class="ghost" data-cell="${gh.x},${gh.y}" opacity="0.85">${this.cardMarkup(gh.card, gh.x, gh.y, gh.rotated, "legal")}</g>`);
    }
    for (const k of route) {
      const [x, y] = k.split(",").map(Number);
      parts.push(`<rect class="route" x="${x * px - 2}" y="${y * py - 2}" width="${w + 4}" height="${h + 4}" rx="9" fill="none" stroke="${this.look.colours.route || "#ffd54a"}" stroke-width="${this.look.card.route_w || 7}"/>`);
    }
    if (last) {
      parts.push(`<rect class="last-move ${last.kind}${last.steady ? " steady" : ""}" data-last="${last.x},${last.y}" x="${last.x * px - 4}" y="${last.y * py - 4}" width="${w + 8}" height="${h + 8}" rx="11" fill="none" stroke="#4fc3f7" stroke-width="8" style="animation-delay:-${last.age || 0}ms"/>`);
    }
    this.svg.innerHTML = parts.join("");
    this.svg.dataset.cards = String((view.board || []).length);
    const targets = this._targets(marks);
    if (!this.fitted || marks.refit) {
      this.fit();
      this.fitted = true;
      if (marks.frame && marks.frame.length) {
        // opened on the reader's turn: the whole maze first, then what they can play
        const cells = marks.frame;
        clearTimeout(this._later);
        this._later = setTimeout(() => {
          this._later = null;
          this._flag();
          if (!this.moved && this.intent === "whole") this.frame(cells);
        }, 900);
        this._flag();
      }
    } else if (marks.frame && marks.frame.length && !this.moved) {
      this.frame(marks.frame); // the reader's turn starts: what they can play, big enough
    } else if (marks.reveal && targets.length && (!this._shows(marks) || (!this.moved && !this._bigEnough()))) {
      this.frame(targets); // the selected card's targets are off-screen (or too small to tap)
    } else if (this.intent === "whole" && !this.moved && JSON.stringify(this.bounds(view, {})) !== this.wholeKey) {
      this.fit(); // the maze grew past the view
    } else {
      this._apply();
    }
  }

  // The cells the marks light up: targets of the selected card, goals to look at.
  _targets(marks) {
    const goals = ((this.view && this.view.goals) || []).filter((g) => (marks.goalTargets || []).includes(g.goal));
    return [...(marks.cells || []), ...(marks.cardTargets || []), ...goals.map((g) => [g.x, g.y])];
  }

  // Is a lit target as wide as minTargetPx at the current zoom?
  _bigEnough() {
    const r = this.svg.getBoundingClientRect();
    if (!this.vb || !(r.width > 0)) return true;
    return (this.look.card.w - 2 * INSET) / this._scale() >= minTargetPx(r.width) - 0.5;
  }

  // Frame `cells` so every lit target is at least minTargetPx wide: the whole maze when it
  // fits at that size; else as many of the cells as fit, those nearest the goals first,
  // with as much of the maze around them as the screen holds.
  frame(cells) {
    const r = this.svg.getBoundingClientRect();
    const reserve = Number(this.svg.dataset.reserve || 0);
    if (!(r.width > reserve * 3 && r.height > 0) || !cells.length) { this.fit(); return; }
    const [px, py] = this.pitch;
    const W = r.width - reserve, H = r.height;
    const sMax = (this.look.card.w - 2 * INSET) / minTargetPx(r.width);
    const pad = 0.3;
    const need = (b) => Math.max(((b.x1 - b.x0 + 1 + 2 * pad) * px) / W, ((b.y1 - b.y0 + 1 + 2 * pad) * py) / H);
    const grow = (b, [x, y]) => ({ x0: Math.min(b.x0, x), x1: Math.max(b.x1, x), y0: Math.min(b.y0, y), y1: Math.max(b.y1, y) });
    const whole = cells.reduce(grow, this.bounds(this.view || {}, {}));
    if (need(whole) <= sMax) { this.fit(whole); return; }
    // the first cells given come first (the caller puts path targets before goals to
    // look at); among equals, those nearest the goals' column
    const rank = (c) => (c[2] === undefined ? 0 : c[2]);
    const order = [...cells].sort((a, b) => rank(a) - rank(b) || b[0] - a[0] || Math.abs(a[1]) - Math.abs(b[1]));
    let box = { x0: order[0][0], x1: order[0][0], y0: order[0][1], y1: order[0][1] };
    for (const c of order.slice(1)) {
      const bigger = grow(box, c);
      if (need(bigger) <= sMax) box = bigger;
    }
    // centre on the chosen cells; keep the view inside the maze where the maze is larger
    const s = sMax;
    const span = (lo, hi, size, wlo, whi) => {
      const centre = ((lo + hi) / 2);
      let a = centre - size / 2;
      if (whi - wlo > size) a = Math.min(Math.max(a, wlo), whi - size);
      else a = (wlo + whi) / 2 - size / 2;
      return a;
    };
    const g = this.look.card.gap;
    const wx0 = (whole.x0 - pad) * px, wx1 = (whole.x1 + 1 + pad) * px - g;
    const wy0 = (whole.y0 - pad) * py, wy1 = (whole.y1 + 1 + pad) * py - g;
    const x = span((box.x0 - pad) * px, (box.x1 + 1 + pad) * px - g, W * s, wx0, wx1);
    const y = span((box.y0 - pad) * py, (box.y1 + 1 + pad) * py - g, H * s, wy0, wy1);
    const to = { x, y, w: r.width * s, h: r.height * s };
    this.size = { w: r.width, h: r.height };
    this.intent = "targets";
    this.framed = cells;
    this.moved = false;
    this._animate(to);
  }

  _stop() {
    cancelAnimationFrame(this._anim);
    this._anim = null;
    this._flag();
  }

  // data-moving is set while the view is gliding or a frame is due (tests wait for both).
  _flag() {
    if (this._anim || this._later) this.svg.dataset.moving = "1";
    else delete this.svg.dataset.moving;
  }

  // Glide the view box to `to` (a short zoom the eye can follow, not a jump); a touch stops it.
  _animate(to, ms = 280) {
    this._stop();
    const from = this.vb;
    if (!from || typeof requestAnimationFrame !== "function") { this.vb = to; this._apply(); return; }
    const t0 = performance.now();
    const step = (now) => {
      const k = Math.min(1, (now - t0) / ms), e = k * (2 - k);
      this.vb = { x: from.x + (to.x - from.x) * e, y: from.y + (to.y - from.y) * e,
        w: from.w + (to.w - from.w) * e, h: from.h + (to.h - from.h) * e };
      this._apply();
      this._anim = k < 1 ? requestAnimationFrame(step) : null;
      if (!this._anim) this._flag();
    };
    this._anim = requestAnimationFrame(step);
    this._flag();
  }

  // Are all targets on screen, clear of the zoom buttons' column? A target under the
  // buttons cannot be tapped, so it counts as hidden and the board refits.
  _shows(marks) {
    if (!this.vb) return false;
    const r = this.svg.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return false;
    const reserve = Number(this.svg.dataset.reserve || 0);
    const [x0, y0] = this._toSvg(r.left, r.top);
    const [x1, y1] = this._toSvg(r.right - reserve, r.bottom);
    const [px, py] = this.pitch;
    const { w, h } = this.look.card;
    const goals = ((this.view && this.view.goals) || []).filter((g) => (marks.goalTargets || []).includes(g.goal));
    const cells = [...(marks.cells || []), ...(marks.cardTargets || []), ...goals.map((g) => [g.x, g.y])];
    return cells.every(([x, y]) => x * px >= x0 && y * py >= y0 && x * px + w <= x1 && y * py + h <= y1);
  }

  // The element changed size (the hand, the bar, Telegram's viewport): an untouched view
  // refits; a panned or zoomed one keeps its centre and scale. Either way the view box
  // takes the element's proportions again, so the view box is exactly what is on screen.
  _resized() {
    if (!this.vb) return;
    const r = this.svg.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return;
    // A new width (rotation, a wider window) frames again; a new height alone (the button
    // bar, the hand, the toast) never does: the maze keeps its place and size.
    const widthChanged = !this.size || Math.abs(this.size.w - r.width) > 1;
    if (!this.moved && widthChanged) {
      if (this.intent === "targets" && this.framed) this.frame(this.framed);
      else this.fit();
      return;
    }
    // cards keep their size on screen: the same view box units per pixel as before
    const s = this.size ? this.vb.w / this.size.w : this._scale();
    const cx = this.vb.x + this.vb.w / 2, cy = this.vb.y + this.vb.h / 2;
    this.vb = { x: cx - r.width * s / 2, y: cy - r.height * s / 2, w: r.width * s, h: r.height * s };
    this.size = { w: r.width, h: r.height };
    this._apply();
  }

  fit(b) {
    this.wholeKey = JSON.stringify(this.bounds(this.view || {}, {}));
    this.intent = "whole";
    this.framed = null;
    b = b || this.bounds(this.view || {}, {});
    const [px, py] = this.pitch;
    const pad = 0.25;
    const vb = { x: (b.x0 - pad) * px, y: (b.y0 - pad) * py,
      w: (b.x1 - b.x0 + 1 + 2 * pad) * px - this.look.card.gap, h: (b.y1 - b.y0 + 1 + 2 * pad) * py - this.look.card.gap };
    // Fill the element exactly (no "meet" offsets) and keep the column under the zoom
    // buttons free, so they never cover a card or a target.
    const r = this.svg.getBoundingClientRect();
    const reserve = Number(this.svg.dataset.reserve || 0);
    this.size = null;
    if (r.width > reserve * 3 && r.height > 0) {
      const s = Math.max(vb.w / (r.width - reserve), vb.h / r.height);
      vb.x -= ((r.width - reserve) * s - vb.w) / 2;
      vb.y -= (r.height * s - vb.h) / 2;
      vb.w = r.width * s;
      vb.h = r.height * s;
      this.size = { w: r.width, h: r.height };
    }
    this._stop();
    this.vb = vb;
    this.home = { ...this.vb };
    this.moved = false;
    this._apply();
  }

  _apply() {
    if (!this.vb) return;
    const v = this.vb;
    this.svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
    this.svg.dataset.intent = this.moved ? "moved" : this.intent;
    this._edgeMarks();
    // the peeked-goal pill stays readable however far the maze is zoomed out
    const peeks = this.svg.querySelectorAll(".peek");
    if (!peeks.length) return;
    const k = Math.min(3, Math.max(1, (13 * this._scale()) / 26));
    for (const el of peeks) {
      const cx = Number(el.dataset.cx), cy = Number(el.dataset.cy);
      el.setAttribute("transform", `translate(${cx} ${cy}) scale(${k}) translate(${-cx} ${-cy})`);
    }
  }

  // One marker for the goals out of view, at the top of the zoom buttons' column (never
  // over a card or a target): an arrow towards them and what the reader knows of each.
  _edgeMarks() {
    const r = this.svg.getBoundingClientRect();
    const goals = (this.view && this.view.goals) || [];
    if (!(r.width > 0) || !goals.length) { this.edge.innerHTML = ""; return; }
    const s = this._scale();
    const [px, py] = this.pitch;
    const { w, h } = this.look.card;
    const reserve = Number(this.svg.dataset.reserve || 0);
    const ox = (r.width * s - this.vb.w) / 2, oy = (r.height * s - this.vb.h) / 2;
    const known = new Map(((this.view.you && this.view.you.known_goals) || []).map((g) => [g.goal, g.kind]));
    const faces = [];
    let dx = 0, dy = 0;
    for (const g of goals) {
      const left = (g.x * px - this.vb.x + ox) / s, top = (g.y * py - this.vb.y + oy) / s;
      const right = left + w / s, bottom = top + h / s;
      if (right > 8 && left < r.width - reserve - 8 && bottom > 8 && top < r.height - 8) continue; // in view
      dx += right <= 8 ? -1 : left >= r.width - reserve - 8 ? 1 : 0;
      dy += bottom <= 8 ? -1 : top >= r.height - 8 ? 1 : 0;
      const kind = g.revealed ? g.kind : known.get(g.goal);
      faces.push(`<span class="${kind || "unknown"}">${kind === "gold" ? "★" : kind === "stone" ? "✕" : "?"}</span>`);
    }
    const arrow = Math.abs(dx) >= Math.abs(dy) ? (dx < 0 ? "◂" : "▸") : (dy < 0 ? "▴" : "▾");
    const out = faces.length
      ? `<button type="button" class="edge-goal" data-edge-goal style="right:5px;top:6px" aria-label="${t("table.showAll")}" title="${t("table.showAll")}">${arrow}<span class="faces">${faces.join("")}</span></button>` : "";
    if (this.edge.innerHTML !== out) this.edge.innerHTML = out;
  }

  _scale() {
    const r = this.svg.getBoundingClientRect();
    return Math.max(this.vb.w / (r.width || 1), this.vb.h / (r.height || 1));
  }

  _toSvg(cx, cy) {
    const r = this.svg.getBoundingClientRect();
    const s = this._scale();
    // preserveAspectRatio xMidYMid meet: the content is centred
    const ox = (r.width * s - this.vb.w) / 2, oy = (r.height * s - this.vb.h) / 2;
    return [this.vb.x - ox + (cx - r.left) * s, this.vb.y - oy + (cy - r.top) * s];
  }

  zoom(factor, cx, cy) {
    if (!this.vb) return;
    this._stop();
    const home = this.home || this.vb;
    const minW = this.look.card.w * 1.6;
    const maxW = Math.max(home.w, home.h * 1.5) * 2.5;
    const nw = Math.min(maxW, Math.max(minW, this.vb.w * factor));
    const f = nw / this.vb.w;
    const [sx, sy] = cx === undefined ? [this.vb.x + this.vb.w / 2, this.vb.y + this.vb.h / 2] : this._toSvg(cx, cy);
    this.vb = { x: sx - (sx - this.vb.x) * f, y: sy - (sy - this.vb.y) * f, w: this.vb.w * f, h: this.vb.h * f };
    this.moved = true;
    this._apply();
  }

  _bind() {
    const svg = this.svg;
    svg.addEventListener("pointerdown", (e) => {
      clearTimeout(this._later);
      this._later = null;
      this._stop();
      svg.setPointerCapture(e.pointerId);
      this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (this.pointers.size === 1) {
        this.down = { x: e.clientX, y: e.clientY, moved: 0 };
        tg.swipes.off();
      } else if (this.down) {
        this.down.moved = 1e9; // a pinch is never a tap
      }
    });
    svg.addEventListener("pointermove", (e) => {
      const p = this.pointers.get(e.pointerId);
      if (!p || !this.vb) return;
      if (this.pointers.size === 1) {
        const s = this._scale();
        const dx = e.clientX - p.x, dy = e.clientY - p.y;
        if (this.down) this.down.moved += Math.abs(dx) + Math.abs(dy);
        if (!this.down || this.down.moved > 8) {
          this.vb.x -= dx * s;
          this.vb.y -= dy * s;
          this.moved = true;
          this._apply();
        }
      } else if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const before = Math.hypot(a.x - b.x, a.y - b.y);
        p.x = e.clientX; p.y = e.clientY;
        const [a2, b2] = [...this.pointers.values()];
        const after = Math.hypot(a2.x - b2.x, a2.y - b2.y);
        if (before > 0 && after > 0) this.zoom(before / after, (a2.x + b2.x) / 2, (a2.y + b2.y) / 2);
        return;
      }
      p.x = e.clientX; p.y = e.clientY;
    });
    const up = (e) => {
      if (!this.pointers.has(e.pointerId)) return;
      this.pointers.delete(e.pointerId);
      if (this.pointers.size === 0) {
        tg.swipes.on();
        if (this.down && this.down.moved <= 8 && e.type === "pointerup") this._tap(e.clientX, e.clientY);
        this.down = null;
      }
    };
    svg.addEventListener("pointerup", up);
    svg.addEventListener("pointercancel", up);
    svg.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.zoom(Math.exp(e.deltaY * 0.0015), e.clientX, e.clientY);
    }, { passive: false });
  }

  _tap(cx, cy) {
    const [sx, sy] = this._toSvg(cx, cy);
    const [px, py] = this.pitch;
    const x = Math.floor(sx / px), y = Math.floor(sy / py);
    const el = document.elementFromPoint(cx, cy);
    const goalEl = el && el.closest && el.closest("[data-goal]");
    const goal = goalEl ? Number(goalEl.dataset.goal) : null;
    this.onTap({ x, y, goal });
  }
}
