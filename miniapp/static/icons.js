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

const EMOJI = { MAP: "🗺️", ROCKFALL: "💥", S2_ROCKFALL: "💥", HANDS_OFF: "✋", SWAP_YOUR_HAND: "🔄",
  INSPECTION: "🔍", SWAP_YOUR_HATS: "🎩", FREE_AT_LAST: "🔓" };

// An action card face in card units (100 x 150): its icon(s) and nothing private.
export function actionFace(look, card) {
  const c = look.colours || {};
  let body = `<rect x="2" y="2" width="96" height="146" rx="8" fill="#f4ead8" stroke="${c.rock_edge || "#2a211c"}" stroke-width="4"/>`;
  const tools = card.tools || [];
  const effect = card.kind || card.effect || "";
  if (effect === "break" || effect === "repair") {
    const broken = effect === "break";
    if (tools.length === 2) {
      body += `<g>${iconSvg(look, tools[0], { broken, x: 14, y: 22, size: 46 })}</g>`;
      body += `<g>${iconSvg(look, tools[1], { broken, x: 40, y: 80, size: 46 })}</g>`;
    } else if (tools.length === 1) {
      body += iconSvg(look, tools[0], { broken, x: 15, y: 40, size: 70 });
    }
    if (!broken) body += `<circle cx="80" cy="20" r="13" fill="#2e7d32"/><path d="M73 20 l5 5 l9 -10" stroke="#fff" stroke-width="4" fill="none"/>`;
  } else if (effect === "trapped" || effect === "theft") {
    body += iconSvg(look, effect, { x: 15, y: 40, size: 70 });
  } else {
    body += `<text x="50" y="92" font-size="54" text-anchor="middle">${EMOJI[card.id] || "❔"}</text>`;
  }
  return body;
}
