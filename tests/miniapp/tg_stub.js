// A stand-in for https://telegram.org/js/telegram-web-app.js in browser tests: it provides
// signed initData and themeParams like Telegram does, and records every call the page makes.
(function () {
  const CFG = __CONFIG__;
  const calls = [];
  window.__tgCalls = calls;
  const log = (name, ...args) => calls.push([name, ...args]);
  const params = new URLSearchParams(CFG.initData);
  const unsafe = {};
  for (const [k, v] of params) unsafe[k] = k === "user" ? JSON.parse(v) : v;
  const handlers = { main: [], back: [], events: {} };
  const root = document.documentElement;
  for (const [k, v] of Object.entries(CFG.themeParams)) root.style.setProperty(`--tg-theme-${k.replace(/_/g, "-")}`, v);
  const MainButton = {
    text: "", isVisible: false, isActive: true,
    setText(t) { this.text = t; log("MainButton.setText", t); return this; },
    show() { this.isVisible = true; log("MainButton.show"); return this; },
    hide() { this.isVisible = false; log("MainButton.hide"); return this; },
    enable() { this.isActive = true; return this; },
    disable() { this.isActive = false; return this; },
    onClick(f) { handlers.main.push(f); return this; },
    offClick(f) { handlers.main = handlers.main.filter((x) => x !== f); return this; },
  };
  const BackButton = {
    isVisible: false,
    show() { this.isVisible = true; log("BackButton.show"); },
    hide() { this.isVisible = false; log("BackButton.hide"); },
    onClick(f) { handlers.back.push(f); },
    offClick(f) { handlers.back = handlers.back.filter((x) => x !== f); },
  };
  window.__tgPressMain = () => { if (MainButton.isVisible) handlers.main.slice().forEach((f) => f()); };
  window.__tgPressBack = () => handlers.back.slice().forEach((f) => f());
  // Mini Apps 8.0 (full screen, safe areas, home screen), only when CFG.version says so:
  // an older client has none of these methods, as in Telegram.
  const version = CFG.version || "8.0";
  const atLeast = (v) => {
    const [a, b] = version.split(".").map(Number), [c, d] = String(v).split(".").map(Number);
    return a > c || (a === c && (b || 0) >= (d || 0));
  };
  const emit = (name, self) => (handlers.events[name] || []).slice().forEach((f) => f.call(self || window.Telegram.WebApp));
  window.__tgEmit = emit;
  window.Telegram = {
    WebApp: {
      initData: CFG.initData, initDataUnsafe: unsafe, version: "8.0", platform: "tdesktop",
      colorScheme: CFG.colorScheme, themeParams: CFG.themeParams, isExpanded: false,
      MainButton, BackButton,
      HapticFeedback: {
        impactOccurred: (s) => log("haptic.impact", s),
        notificationOccurred: (s) => log("haptic.notification", s),
        selectionChanged: () => log("haptic.selection"),
      },
      ready() { log("ready"); },
      expand() { this.isExpanded = true; log("expand"); },
      disableVerticalSwipes() { log("disableVerticalSwipes"); },
      enableVerticalSwipes() { log("enableVerticalSwipes"); },
      isVersionAtLeast: atLeast,
      onEvent(name, f) { (handlers.events[name] = handlers.events[name] || []).push(f); },
      offEvent() {},
    },
  };
  if (atLeast("8.0")) {
    const W = window.Telegram.WebApp;
    Object.assign(W, {
      isFullscreen: !!CFG.fullscreen,
      safeAreaInset: CFG.safeAreaInset || { top: 0, bottom: 0, left: 0, right: 0 },
      contentSafeAreaInset: CFG.contentSafeAreaInset || { top: 0, bottom: 0, left: 0, right: 0 },
      requestFullscreen() {
        log("requestFullscreen");
        this.isFullscreen = true;
        this.safeAreaInset = CFG.fullscreenSafeArea || { top: 47, bottom: 34, left: 0, right: 0 };
        this.contentSafeAreaInset = CFG.fullscreenContentSafeArea || { top: 46, bottom: 0, left: 0, right: 0 };
        emit("safeAreaChanged"); emit("contentSafeAreaChanged"); emit("fullscreenChanged");
      },
      exitFullscreen() {
        log("exitFullscreen");
        this.isFullscreen = false;
        this.safeAreaInset = { top: 0, bottom: 0, left: 0, right: 0 };
        this.contentSafeAreaInset = { top: 0, bottom: 0, left: 0, right: 0 };
        emit("safeAreaChanged"); emit("contentSafeAreaChanged"); emit("fullscreenChanged");
      },
      checkHomeScreenStatus(cb) { log("checkHomeScreenStatus"); setTimeout(() => cb && cb(CFG.homeScreen || "missed"), 10); },
      addToHomeScreen() { log("addToHomeScreen"); },
      shareMessage(id, cb) { log("shareMessage", id); setTimeout(() => cb && cb(true), 10); },
    });
  }
})();
