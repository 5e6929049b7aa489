// Telegram WebApp, feature-detected: every call works (as a no-op) with window.Telegram absent.
const W = () => (window.Telegram && window.Telegram.WebApp) || null;

export const inTelegram = () => {
  const w = W();
  return !!(w && typeof w.initData === "string" && w.initData.length > 0);
};
export const initData = () => (inTelegram() ? W().initData : "");
export const unsafe = () => (W() && W().initDataUnsafe) || {};
export const platformVersion = () => (W() && W().version) || "";

function call(path, ...args) {
  const w = W();
  if (!w) return undefined;
  let target = w;
  const parts = path.split(".");
  const name = parts.pop();
  for (const p of parts) {
    target = target && target[p];
  }
  if (!target || typeof target[name] !== "function") return undefined;
  try {
    return target[name](...args);
  } catch (e) {
    return undefined; // an older client without this method: nothing to do
  }
}

export function applyTheme() {
  const w = W();
  const root = document.documentElement;
  const params = (w && w.themeParams) || {};
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === "string") root.style.setProperty(`--tg-theme-${key.replace(/_/g, "-")}`, value);
  }
  const scheme = (w && w.colorScheme) ||
    (window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  root.dataset.scheme = scheme;
}

export function start() {
  applyTheme();
  call("ready");
  call("expand");
  call("onEvent", "themeChanged", applyTheme);
}

export const swipes = {
  off: () => call("disableVerticalSwipes"),
  on: () => call("enableVerticalSwipes"),
};

export const haptic = {
  light: () => call("HapticFeedback.impactOccurred", "light"),
  error: () => call("HapticFeedback.notificationOccurred", "error"),
  success: () => call("HapticFeedback.notificationOccurred", "success"),
  select: () => call("HapticFeedback.selectionChanged"),
};

export const hasMainButton = () => !!(inTelegram() && W().MainButton && W().MainButton.setText);
let mainHandler = null;
export function mainButton(text, handler) {
  if (!hasMainButton()) return false;
  const mb = W().MainButton;
  if (mainHandler) call("MainButton.offClick", mainHandler);
  mainHandler = null;
  if (!text) {
    call("MainButton.hide");
    return true;
  }
  mainHandler = handler;
  call("MainButton.setText", text);
  call("MainButton.onClick", handler);
  call("MainButton.enable");
  call("MainButton.show");
  return !!mb;
}

let backHandler = null;
export function backButton(handler) {
  if (!W() || !W().BackButton) return;
  if (backHandler) call("BackButton.offClick", backHandler);
  backHandler = handler || null;
  if (handler) {
    call("BackButton.onClick", handler);
    call("BackButton.show");
  } else {
    call("BackButton.hide");
  }
}
