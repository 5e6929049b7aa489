// Small SVG pieces for the hand and the players strip, from the shared look table.
export function esc(s) {
  return String(s === undefined || s === null ? "" : s).replace(/[&<>"']/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// Draw look.icons[name] (primitives in a unit box) into the box (x, y, size).
export function iconSvg(look, name, { broken = false, x = 0, y = 0, size = 1 } = {}) {
  const prims = (look && look.icons && look.icons[name]) || [];
  const br = (look && look.broken) || { fill: "#e53935", stroke: "#7f0000", cross: [] };
  const P = (p) => `${x + p[0] * size},${y + p[1] * size}`;
  const col = (c, stroke) => (c ? (broken ? (stroke ? br.stroke : br.fill) : c) : "none");
  const one = (p) => {
    const sw = (p.width || 0) * size;
    if (p.shape === "circle") {
      return `<circle cx="${x + p.c[0] * size}" cy="${y + p.c[1] * size}" r="${p.r * size}" fill="${col(p.fill)}" stroke="${col(p.stroke, true)}" stroke-width="${sw}"/>`;
    }
    const pts = p.points.map(P).join(" ");
    if (p.shape === "line") {
      return `<polyline points="${pts}" fill="none" stroke="${col(p.stroke, true)}" stroke-width="${sw}" stroke-linecap="round"/>`;
    }
    return `<polygon points="${pts}" fill="${col(p.fill)}" stroke="${col(p.stroke, true)}" stroke-width="${sw}" stroke-linejoin="round"/>`;
  };
  let out = prims.map(one).join("");
  if (broken) {
    out += (br.cross || []).map((p) => {
      const pts = p.points.map(P).join(" ");
      return `<polyline points="${pts}" fill="none" stroke="${p.stroke}" stroke-width="${p.width * size}" stroke-linecap="round"/>`;
    }).join("");
  }
  return out;
}

export function iconTag(look, name, broken, px = 22, title = "") {
  return `<svg class="icon" width="${px}" height="${px}" viewBox="0 0 1 1" role="img" aria-label="${esc(title || name)}"><title>${esc(title || name)}</title>${iconSvg(look, name, { broken })}</svg>`;
}

// Action cards without a tool icon: simple vector glyphs (no emoji: phones differ, and
// machines without a colour-emoji font draw boxes).
const G = {
  MAP: `<rect x="16" y="38" width="68" height="74" rx="4" fill="#e9d7a8" stroke="#7a5a2a" stroke-width="4"/>
    <path d="M26 100 C40 80 52 92 60 70 S72 56 74 50" stroke="#7a5a2a" stroke-width="4" fill="none" stroke-dasharray="6 5"/>
    <path d="M66 42 l14 14 M80 42 l-14 14" stroke="#c62828" stroke-width="6" stroke-linecap="round"/>`,
  ROCKFALL: `<circle cx="36" cy="92" r="18" fill="#8d8d8d" stroke="#3d3d3d" stroke-width="4"/>
    <circle cx="64" cy="98" r="14" fill="#a5a5a5" stroke="#3d3d3d" stroke-width="4"/>
    <circle cx="52" cy="68" r="13" fill="#9a9a9a" stroke="#3d3d3d" stroke-width="4"/>
    <path d="M30 40 l10 12 l-6 4 l12 10 M70 36 l-6 14 l8 2 l-8 12" stroke="#c62828" stroke-width="4" fill="none"/>`,
  S2_ROCKFALL: null,
  HANDS_OFF: null,
  SWAP_YOUR_HAND: `<rect x="14" y="40" width="36" height="54" rx="5" fill="#d9a764" stroke="#4e2e12" stroke-width="4"/>
    <rect x="50" y="60" width="36" height="54" rx="5" fill="#90caf9" stroke="#0d47a1" stroke-width="4"/>
    <path d="M30 108 q0 18 22 18 M46 120 l6 6 l-6 6 M70 48 q0 -18 -22 -18 M54 24 l-6 6 l6 6" stroke="#333" stroke-width="4" fill="none"/>`,
  INSPECTION: `<circle cx="44" cy="66" r="24" fill="#e3f2fd" stroke="#37474f" stroke-width="7"/>
    <path d="M62 84 l22 24" stroke="#37474f" stroke-width="10" stroke-linecap="round"/>
    <text x="44" y="76" font-size="28" font-weight="700" text-anchor="middle" fill="#37474f">?</text>`,
  SWAP_YOUR_HATS: `<path d="M22 96 h56 l-8 -12 h-6 l-6 -40 h-16 l-6 40 h-6 z" fill="#5d4037" stroke="#2a1a10" stroke-width="4" stroke-linejoin="round"/>
    <rect x="36" y="72" width="28" height="7" fill="#ffcc33"/>
    <path d="M24 116 q26 14 52 0 M70 110 l6 6 l-8 4" stroke="#333" stroke-width="4" fill="none"/>`,
};
G.S2_ROCKFALL = G.ROCKFALL;

// An action card face in card units (100 x 150): its icon(s) and nothing private.
export function actionFace(look, card) {
  const c = look.colours || {};
  let body = `<rect x="2" y="2" width="96" height="146" rx="8" fill="#f4ead8" stroke="${c.rock_edge || "#2a211c"}" stroke-width="4"/>`;
  const tools = card.tools || [];
  const effect = card.kind || card.effect || "";
  const ok = `<circle cx="80" cy="20" r="13" fill="#2e7d32"/><path d="M73 20 l5 5 l9 -10" stroke="#fff" stroke-width="4" fill="none"/>`;
  const no = `<circle cx="80" cy="20" r="13" fill="#c62828"/><path d="M74 14 l12 12 M86 14 l-12 12" stroke="#fff" stroke-width="4"/>`;
  if (effect === "break" || effect === "repair") {
    const broken = effect === "break";
    if (tools.length === 2) {
      body += iconSvg(look, tools[0], { broken, x: 10, y: 30, size: 46 });
      body += iconSvg(look, tools[1], { broken, x: 44, y: 72, size: 46 });
    } else if (tools.length === 1) {
      body += iconSvg(look, tools[0], { broken, x: 15, y: 36, size: 70 });
    }
    if (!broken) body += ok;
  } else if (effect === "trapped" || effect === "theft") {
    body += iconSvg(look, effect, { x: 15, y: 36, size: 70 });
  } else if (effect === "free") {
    body += iconSvg(look, "trapped", { x: 15, y: 36, size: 70 }) + ok;
  } else if (effect === "hands_off") {
    body += iconSvg(look, "theft", { x: 15, y: 36, size: 70 }) + no;
  } else {
    body += G[card.id] || `<text x="50" y="92" font-size="54" text-anchor="middle" fill="#555">?</text>`;
  }
  return body;
}

export const GLYPH = {
  robot: `<svg class="glyph" width="16" height="16" viewBox="0 0 16 16" aria-hidden="true"><rect x="2" y="4" width="12" height="10" rx="2" fill="currentColor"/><rect x="7" y="1" width="2" height="3" fill="currentColor"/><circle cx="5.5" cy="8.5" r="1.5" fill="var(--bg)"/><circle cx="10.5" cy="8.5" r="1.5" fill="var(--bg)"/></svg>`,
  cards: `<svg class="glyph" width="14" height="16" viewBox="0 0 14 16" aria-hidden="true"><rect x="1" y="1" width="10" height="14" rx="2" fill="none" stroke="currentColor" stroke-width="1.6"/><rect x="4" y="3" width="9" height="12" rx="2" fill="currentColor" opacity=".5"/></svg>`,
  log: `<svg width="22" height="22" viewBox="0 0 22 22" aria-hidden="true"><path d="M5 6h12M5 11h12M5 16h8" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/></svg>`,
  fit: `<svg width="22" height="22" viewBox="0 0 22 22" aria-hidden="true"><path d="M3 8V3h5M14 3h5v5M19 14v5h-5M8 19H3v-5" stroke="currentColor" stroke-width="2.4" fill="none"/></svg>`,
  gold: `<svg class="glyph" width="16" height="16" viewBox="0 0 16 16" aria-hidden="true"><circle cx="8" cy="8" r="6.5" fill="#ffcc33" stroke="#a06d00" stroke-width="1.5"/><text x="8" y="11.5" font-size="9" font-weight="700" text-anchor="middle" fill="#7a4f00">G</text></svg>`,
};
