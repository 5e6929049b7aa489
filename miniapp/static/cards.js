// Cards as SVG, drawn from their connectivity groups with the shared look (core/look.py).
//
// The twin of telegram_bot/card_art.py: same rules, same table, so a card looks the same in
// the Mini App and in the group picture.  No framework, no build step: an ES module that
// returns SVG markup strings.  The look table comes from the server (/api/catalogue "look",
// i.e. core.look.look_json()); pass it as `look` or call setLook() once.
//
// A card turned 180 degrees is drawn by turning its edges and point features; letters
// (the door's B/G) stay upright so they stay readable.

let LOOK = null;

/** Remember the look table for calls that do not pass one. */
export function setLook(look) {
  LOOK = look;
}

function need(look) {
  const l = look || LOOK;
  if (!l || !l.card || !l.colours) throw new Error("cards.js: no look table (setLook(look_json))");
  return l;
}

const OPP = { N: "S", S: "N", E: "W", W: "E" };
const BITS = [["N", 1], ["E", 2], ["S", 4], ["W", 8]];
const n = (v) => +(+v).toFixed(2);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A group as edge letters, whether given as "NS" or as a bit mask. */
function letters(g) {
  if (typeof g === "number") return BITS.filter(([, b]) => g & b).map(([e]) => e).join("");
  return String(g);
}

function rect(x0, y0, x1, y1, fill, cls, extra = "") {
  const x = Math.min(x0, x1), y = Math.min(y0, y1);
  return `<rect class="${cls}" x="${n(x)}" y="${n(y)}" width="${n(Math.abs(x1 - x0))}" ` +
    `height="${n(Math.abs(y1 - y0))}" fill="${fill}"${extra}/>`;
}

/** The band rectangle from `edge` inwards, `depth` card units deep. */
function segment(L, edge, depth) {
  const { w, h, band_w: bw } = L.card;
  const [cx, cy] = L.card.centre, hb = bw / 2;
  return {
    N: [cx - hb, 0, cx + hb, depth],
    S: [cx - hb, h - depth, cx + hb, h],
    W: [0, cy - hb, depth, cy + hb],
    E: [w - depth, cy - hb, w, cy + hb],
  }[edge];
}

function grow(b, by, edge) {
  const [x0, y0, x1, y1] = b;
  if (edge === "N" || edge === "S") return [x0 - by, y0, x1 + by, y1];
  return [x0, y0 - by, x1, y1 + by];
}

const toCentre = (L, e) => ((e === "N" || e === "S") ? L.card.h / 2 : L.card.w / 2) + L.card.band_w / 2;

/** One tunnel: bands from each edge to the centre, joined (rims first, then fills). */
function bands(L, edges, depth, earth, cls) {
  const C = L.colours;
  const rims = edges.map((e) => rect(...grow(segment(L, e, depth || toCentre(L, e)),
    L.card.band_edge_w, e), C.earth_edge, "rim"));
  const fills = edges.map((e) => rect(...segment(L, e, depth || toCentre(L, e)), earth || C.earth, "band"));
  return `<g class="${cls}" data-group="${edges.join("")}">${rims.join("")}${fills.join("")}</g>`;
}

function stub(L, edge) {
  const C = L.colours, c = L.card;
  const [ex, ey] = c.edges[edge];
  const a = c.stub_len;
  const px = ex + (edge === "W" ? a : edge === "E" ? -a : 0);
  const py = ey + (edge === "N" ? a : edge === "S" ? -a : 0);
  const [rx, ry] = (edge === "N" || edge === "S") ? [c.cap_r, c.cap_depth] : [c.cap_depth, c.cap_r];
  const inner = bands(L, [edge], a, null, "stub-band");
  const cap = `<ellipse class="cap" cx="${n(px)}" cy="${n(py)}" rx="${n(rx)}" ry="${n(ry)}" ` +
    `fill="${C.cap}" stroke="${C.cap_edge}" stroke-width="2.5"/>`;
  return `<g class="tunnel stub" data-group="${edge}">${inner}${cap}</g>`;
}

const CORNERS = { NW: [0, 0], NE: [1, 0], ES: [1, 1], SW: [0, 1] };
const cornerKey = (g) => ["NW", "NE", "ES", "SW"].find((k) => g.length === 2 && [...k].every((e) => g.includes(e)));

/** A quarter-ellipse band around a corner (double curve). */
function curve(L, g) {
  const C = L.colours, c = L.card;
  const key = cornerKey(g);
  const [a, b] = [...key];
  const [ax, ay] = c.edges[a], [bx, by] = c.edges[b];
  const [kx, ky] = CORNERS[key].map((v, i) => v * (i ? c.h : c.w));
  // sweep clockwise when turning from a to b around the corner is clockwise on screen
  const sweep = (ax - kx) * (by - ky) - (ay - ky) * (bx - kx) > 0 ? 1 : 0;
  const d = `M${n(ax)} ${n(ay)} A${n(c.w / 2)} ${n(c.h / 2)} 0 0 ${sweep} ${n(bx)} ${n(by)}`;
  return `<g class="tunnel curve" data-group="${key}">` +
    `<path class="rim" d="${d}" fill="none" stroke="${C.earth_edge}" stroke-width="${n(c.band_w + 2 * c.band_edge_w)}"/>` +
    `<path class="band" d="${d}" fill="none" stroke="${C.earth}" stroke-width="${n(c.band_w)}"/></g>`;
}

function door(L, edge, kind) {
  const C = L.colours, c = L.card;
  const spec = (L.doors && L.doors[kind]) || { color: C.door_blue, letter: "?" };
  const [ex, ey] = c.edges[edge], [cx, cy] = c.centre;
  const gx = ex + (cx - ex) * c.door_at, gy = ey + (cy - ey) * c.door_at;
  const h = c.band_w / 2 + c.door_overhang, th = c.door_thick / 2;
  const ns = edge === "N" || edge === "S";
  let out = `<g class="door" data-door="${esc(kind)}">`;
  out += rect(...(ns ? [gx - h, gy - th, gx + h, gy + th] : [gx - th, gy - h, gx + th, gy + h]),
    spec.color, "gate", ` stroke="${C.door_edge}" stroke-width="2"`);
  for (const k of [-0.62, 0.62]) {
    const px = ns ? gx + k * h : gx, py = ns ? gy : gy + k * h;
    out += rect(...(ns ? [px - 2.5, py - th, px + 2.5, py + th] : [px - th, py - 2.5, px + th, py + 2.5]),
      C.door_edge, "post");
  }
  const r = c.door_badge_r;
  out += `<circle cx="${n(gx)}" cy="${n(gy)}" r="${n(r)}" fill="${spec.color}" stroke="${C.door_letter}" stroke-width="2.5"/>`;
  out += `<text x="${n(gx)}" y="${n(gy)}" fill="${C.door_letter}" font-size="${n(r * 1.5)}" ` +
    `font-weight="700" font-family="system-ui,sans-serif" text-anchor="middle" dominant-baseline="central">${esc(spec.letter)}</text>`;
  return out + "</g>";
}

function ladder(L) {
  const C = L.colours, c = L.card;
  const [cx, cy] = c.centre, w = c.ladder_w / 2, h = c.ladder_h / 2;
  const lines = [[cx - w, cy - h, cx - w, cy + h], [cx + w, cy - h, cx + w, cy + h]];
  for (let i = 0; i < c.ladder_rungs; i++) {
    const ry = cy - h + (i + 0.5) * (2 * h / c.ladder_rungs);
    lines.push([cx - w, ry, cx + w, ry]);
  }
  const draw = (col, sw) => lines.map(([a, b, d, e]) =>
    `<line x1="${n(a)}" y1="${n(b)}" x2="${n(d)}" y2="${n(e)}" stroke="${col}" stroke-width="${sw}" stroke-linecap="round"/>`).join("");
  return `<g class="ladder">${draw(C.ladder_edge, 7)}${draw(C.ladder, 4)}</g>`;
}

function gem(L, x, y) {
  const C = L.colours, r = L.card.crystal_r;
  const p = (pts) => pts.map(([a, b]) => `${n(a)},${n(b)}`).join(" ");
  return `<g class="gem">` +
    `<polygon points="${p([[x, y - r], [x + r, y - r * 0.2], [x, y + r * 1.1], [x - r, y - r * 0.2]])}" fill="${C.crystal}" stroke="${C.crystal_edge}" stroke-width="2"/>` +
    `<polygon points="${p([[x - r, y - r * 0.2], [x + r, y - r * 0.2], [x, y + r * 1.1]])}" fill="${C.crystal_dark}" stroke="${C.crystal_edge}" stroke-width="1.5"/>` +
    `<polygon points="${p([[x - r * 0.35, y - r * 0.55], [x, y - r * 0.8], [x + r * 0.1, y - r * 0.45]])}" fill="#ffffff"/></g>`;
}

function frame(L, { x = 0, y = 0, w, h, card }) {
  const c = L.card;
  const W = w ?? c.w, H = h ?? c.h;
  const attrs = card ? ` data-card="${esc(card)}"` : "";
  return [`<g class="card"${attrs} transform="translate(${n(x)} ${n(y)}) scale(${n(W / c.w)} ${n(H / c.h)})">`, "</g>"];
}

function highlightSvg(L, highlight) {
  if (!highlight) return "";
  const C = L.colours, c = L.card;
  if (highlight === "legal") {
    return `<rect class="legal" x="2" y="2" width="${c.w - 4}" height="${c.h - 4}" rx="${c.radius}" ` +
      `fill="${C.legal_glow}" fill-opacity="0.18" stroke="${C.legal_glow}" stroke-width="5"/>`;
  }
  return `<rect class="route" x="0" y="0" width="${c.w}" height="${c.h}" rx="${c.radius}" ` +
    `fill="${C.route}" fill-opacity="${c.route_alpha}" stroke="${C.route}" stroke-width="${c.route_w * 2}"/>`;
}

/**
 * SVG markup of one face-up card (path, start or revealed goal) from its catalogue entry.
 * opts: {rotated, look, x, y, w, h, highlight (true|"route"|"legal")}.
 */
export function cardSvg(card, opts = {}) {
  const L = need(opts.look);
  const C = L.colours, c = L.card;
  const rotated = !!opts.rotated;
  const turn = (e) => (rotated ? OPP[e] : e);
  const groups = (card.groups || []).map((g) => [...letters(g)].map(turn).join(""));
  // the start card and ladder cards are sources: drawn with a ladder, their one-edge groups
  // conduct (cards.json says ladder=true; the engine's catalogue says source=true)
  const isLadder = !!(card.ladder || card.source || card.kind === "start");
  const [open, close] = frame(L, { ...opts, card: card.id });
  let out = open;
  out += `<rect class="rock" x="0" y="0" width="${c.w}" height="${c.h}" rx="${c.radius}" fill="${C.rock}" stroke="${C.rock_edge}" stroke-width="2"/>`;
  const multi = groups.filter((g) => g.length > 1);
  const singles = groups.filter((g) => g.length === 1);
  const straight = (g) => g.length === 2 && OPP[g[0]] === g[1];
  if (multi.length === 2 && multi.every((g) => cornerKey(g))) {
    out += multi.map((g) => curve(L, g)).join("");
  } else if (multi.length === 2 && multi.every(straight)) {
    const over = multi.find((g) => g.includes("N")) || multi[0];
    const under = multi.find((g) => g !== over);
    out += bands(L, [...under], null, C.earth_under, "tunnel bridge-under");
    const [cx, cy] = c.centre, reach = c.band_w / 2 + c.band_edge_w + c.bridge_gap;
    out += rect(cx - reach, cy - reach, cx + reach, cy + reach, C.shadow, "bridge-shadow");
    out += bands(L, [...over], null, C.earth, "tunnel bridge-over");
  } else {
    for (const g of multi) out += bands(L, [...g], null, C.earth, "tunnel");
    if (isLadder) for (const g of singles) out += bands(L, [g], null, C.earth, "tunnel");
  }
  if (!isLadder) out += singles.map((g) => stub(L, g)).join("");
  if (card.door && multi.length) out += door(L, multi[0][0], card.door);
  if (isLadder) out += ladder(L);
  if (card.crystals) {
    const [gx, gy] = c.crystal_at;
    out += rotated ? gem(L, c.w - gx, c.h - gy) : gem(L, gx, gy);
  }
  if (card.kind === "start") {
    out += `<rect class="start-mark" x="2" y="2" width="${c.w - 4}" height="${c.h - 4}" rx="${c.radius}" fill="none" stroke="${C.start_mark}" stroke-width="3"/>`;
  }
  if (card.kind === "goal") {
    if (card.treasure) {
      for (const [x0, y0, r] of c.gold_nuggets) {
        const [x, y] = rotated ? [c.w - x0, c.h - y0] : [x0, y0];
        out += `<ellipse class="nugget" cx="${n(x)}" cy="${n(y)}" rx="${n(r)}" ry="${n(r * 0.85)}" fill="${C.gold}" stroke="${C.gold_edge}" stroke-width="2"/>`;
      }
    } else {
      const [cx, cy] = c.centre;
      for (const g of multi) for (const e of g) for (const [t, r] of c.stone_lumps) {
        const [ex, ey] = c.edges[e];
        const x = ex + (cx - ex) * t, y = ey + (cy - ey) * t;
        out += `<ellipse class="lump" cx="${n(x)}" cy="${n(y)}" rx="${n(r)}" ry="${n(r * 0.8)}" fill="${C.stone}" stroke="${C.stone_edge}" stroke-width="2"/>`;
      }
    }
  }
  return out + highlightSvg(L, opts.highlight) + close;
}

/** A face-down goal: the same back for all three, with a question mark. */
export function goalBackSvg(opts = {}) {
  const L = need(opts.look);
  const C = L.colours, c = L.card;
  const [open, close] = frame(L, opts);
  const [cx, cy] = c.centre;
  return open.replace('class="card"', 'class="card goal-back"') +
    `<rect x="0" y="0" width="${c.w}" height="${c.h}" rx="${c.radius}" fill="${C.goal_back}" stroke="${C.rock_edge}" stroke-width="2"/>` +
    `<rect x="8" y="8" width="${c.w - 16}" height="${c.h - 16}" rx="${c.radius}" fill="none" stroke="${C.goal_back_edge}" stroke-width="3"/>` +
    `<text x="${cx}" y="${cy}" fill="${C.goal_mark}" font-size="60" font-weight="700" font-family="system-ui,sans-serif" ` +
    `text-anchor="middle" dominant-baseline="central">?</text>` + highlightSvg(L, opts.highlight) + close;
}

/** A faint outline where a card could go. */
export function emptyCellSvg(opts = {}) {
  const L = need(opts.look);
  const C = L.colours, c = L.card;
  const [open, close] = frame(L, opts);
  const [d1, d2] = c.empty_dash;
  return open.replace('class="card"', 'class="card empty-cell"') +
    `<rect x="3" y="3" width="${c.w - 6}" height="${c.h - 6}" rx="${c.radius}" fill="none" ` +
    `stroke="${C.empty_outline}" stroke-width="1.5" stroke-dasharray="${d1} ${d2}"/>` +
    highlightSvg(L, opts.highlight) + close;
}

function primitive(p) {
  const f = p.fill || "none";
  const s = p.stroke || "none";
  const sw = n((p.width || 0) * 100);
  const pts = (p.points || []).map(([a, b]) => `${n(a * 100)},${n(b * 100)}`).join(" ");
  if (p.shape === "polygon") {
    return `<polygon points="${pts}" fill="${f}" stroke="${s}" stroke-width="${sw}" stroke-linejoin="round"/>`;
  }
  if (p.shape === "line") {
    return `<polyline points="${pts}" fill="none" stroke="${s}" stroke-width="${sw}" stroke-linecap="round" stroke-linejoin="round"/>`;
  }
  return `<circle cx="${n(p.c[0] * 100)}" cy="${n(p.c[1] * 100)}" r="${n(p.r * 100)}" fill="${f}" stroke="${s}" stroke-width="${sw}"/>`;
}

/**
 * A tool / cage / sack icon as a standalone <svg> (1em square by default).
 * kind: "pickaxe" | "lantern" | "cart" | "trapped" | "theft" | "crystal", or an in-front
 * card id such as "BREAK_CART" (then `broken` follows the look's table).
 */
export function toolIconSvg(kind, broken = false, opts = {}) {
  const L = need(opts.look);
  let name = kind;
  if (L.in_front && L.in_front[kind]) {
    name = L.in_front[kind].icon;
    broken = broken || L.in_front[kind].broken;
  }
  const prims = L.icons[name];
  if (!prims) throw new Error(`cards.js: no icon "${kind}"`);
  const size = opts.size || "1em";
  // broken: the icon in its own colours on a red disc, with a crack on top (look.py)
  const all = broken ? [...L.broken.back, ...prims, ...L.broken.cross] : prims;
  const body = all.map((p) => primitive(p)).join("");
  const label = opts.label ? `<title>${esc(opts.label)}</title>` : "";
  return `<svg class="tool-icon${broken ? " broken" : ""}" data-icon="${esc(name)}" viewBox="0 0 100 100" ` +
    `width="${size}" height="${size}" role="img"${opts.label ? ` aria-label="${esc(opts.label)}"` : ""}>${label}${body}</svg>`;
}

/**
 * A role badge (shown to its owner only): a disc in the role's colour with its icon and
 * letter, so colour is never the only cue.  role: a role card id such as "SABOTEUR".
 */
export function roleBadgeSvg(role, opts = {}) {
  const L = need(opts.look);
  const spec = (L.roles && L.roles[role]) || { color: "#777777", letter: "?", icon: "pickaxe" };
  const size = opts.size || "2em";
  const icon = (L.icons[spec.icon] || []).map((p) => primitive(p)).join("");
  const label = opts.label ? `<title>${esc(opts.label)}</title>` : "";
  return `<svg class="role-badge" data-role="${esc(role)}" viewBox="0 0 100 100" width="${size}" ` +
    `height="${size}" role="img"${opts.label ? ` aria-label="${esc(opts.label)}"` : ""}>${label}` +
    `<circle cx="50" cy="50" r="47" fill="${spec.color}" stroke="#ffffff" stroke-width="5"/>` +
    `<g transform="translate(20 14) scale(0.6)">${icon}</g>` +
    `<circle cx="76" cy="76" r="21" fill="#ffffff" stroke="${spec.color}" stroke-width="4"/>` +
    `<text x="76" y="77" fill="${spec.color}" font-size="28" font-weight="800" ` +
    `font-family="system-ui,sans-serif" text-anchor="middle" dominant-baseline="central">${esc(spec.letter)}</text></svg>`;
}
