// English, 简体中文, 繁體中文. Pick from Telegram's language_code or the browser; overridable.
const EN = {
  title: "Saboteur", loading: "Loading…", round: "Round {round}/{rounds}", deck: "Deck {n}",
  discardPile: "Discards {n}", yourTurn: "Your turn", turnOf: "{name}'s turn", waiting: "Waiting",
  you: "you", computer: "computer", computerN: "Computer {n}", fitView: "Show the whole maze", zoomIn: "Zoom in", zoomOut: "Zoom out", maze: "Maze", hand: "Your hand", offline: "offline", cards: "{n} cards",
  place: "Place card", play: "Play", confirm: "Confirm", cancel: "Cancel", rotate: "Turn 180°",
  discard: "Discard", discardN: "Discard {n}", removeWith2: "Discard 2: remove {what}",
  pickCell: "Tap a glowing cell", pickAgain: "Tap the card again to turn it, then confirm",
  pickCard: "Pick a card on the maze to remove", pickGoal: "Pick a goal to look at",
  pickTarget: "Choose who", pickDiscard: "Select 1–{max} cards to discard", pickDiscard1: "Tap the card to discard",
  noMoves: "Nothing to do now", nextRound: "Next round", ready: "Ready — waiting for others",
  takeBack: "Take back my seat", steal: "Steal from {name}", stealNobody: "Nobody has gold",
  stealPrompt: "Choose whom to steal from",
  role: "Your role", knownGoals: "Goals you saw", knownRoles: "Roles you saw",
  goalN: "Goal {n}", stale: "(may have changed)", none: "—", log: "Log", secrets: "My secrets",
  players: "Players", gold: "Gold {n}", roundOver: "Round over", gameOver: "Game over",
  winners: "Winners: {who}", yourWinnings: "You won {n} gold", finalScores: "Final scores",
  replay: "Replay round", replayStep: "Step {i}/{n}", prev: "Back", next: "Next", close: "Close",
  newGame: "New game", computerLevel: "Computer players", levels: { easy: "Easy", normal: "Normal", hard: "Hard" }, edition: "Edition", classic: "Saboteur", expansion: "Saboteur 2",
  seats: "Players", start: "Start", join: "Join", leave: "Leave", lobby: "Lobby",
  spectator: "You are watching", noGame: "No game opened. Open the board from your group.",
  yourGames: "Your games", sessionExpired: "Session expired — reopen the Mini App.",
  reconnecting: "Reconnecting…", stalePlay: "Someone played first — updated.",
  illegal: "Not allowed: {why}", error: "Something went wrong", language: "Language",
  toolPick: "Repair which?", pickaxe: "pickaxe", lantern: "lantern", cart: "cart",
  brokenIn: "{tool} broken", trapped: "trapped", theft: "theft", hasGold: "has gold",
  goldRoute: "Gold reached", goldKind: "★ Gold", stoneKind: "Stone", timedOut: "(time ran out)", openInTelegram: "Open this board from Telegram (the game's button in your group or chat).", cancelled: "This game was cancelled.", waitingPlayers: "{n}/{max} seated", creatorStarts: "The creator starts the game", deckEmpty: "Deck empty",
  win: { diggers: "Gold-diggers", saboteurs: "Saboteurs", selfish_dwarf: "Selfish Dwarf",
         blue: "Blue gold-diggers", green: "Green gold-diggers", "blue+green": "Blue and green gold-diggers" },
  actions: { BREAK_PICKAXE: "Break pickaxe", BREAK_LANTERN: "Break lantern", BREAK_CART: "Break cart",
    REPAIR_PICKAXE: "Repair pickaxe", REPAIR_LANTERN: "Repair lantern", REPAIR_CART: "Repair cart",
    REPAIR_PICKAXE_LANTERN: "Repair pickaxe/lantern", REPAIR_PICKAXE_CART: "Repair pickaxe/cart",
    REPAIR_LANTERN_CART: "Repair lantern/cart", MAP: "Map", ROCKFALL: "Rockfall", S2_ROCKFALL: "Rockfall",
    THEFT: "Theft", HANDS_OFF: "Hands off", SWAP_YOUR_HAND: "Swap hands", INSPECTION: "Inspection",
    SWAP_YOUR_HATS: "Swap hats", TRAPPED: "Trapped!", FREE_AT_LAST: "Free at last!" },
  moves: { break_tool: "{card} → {target}", repair_tool: "Repair {tool} of {target}",
    trap: "Trap {target}", free: "Free {target}", hands_off: "Remove theft of {target}",
    swap_hand: "Swap hands with {target}", inspect: "Look at {target}'s role",
    swap_hats: "New role for {target}", theft: "Lay theft", map: "Look at goal {goal}" },
  reasons: { not_your_turn: "not your turn", card_not_in_hand: "card not in hand",
    tool_broken: "you have a broken tool", trapped: "you are trapped", cell_taken: "cell taken",
    no_neighbour: "must touch a card", edge_mismatch: "edges don't match",
    not_connected: "not connected to the start", out_of_bounds: "outside the maze",
    ladder_next_to_goal: "ladder next to a goal", bad_target: "wrong target",
    no_such_tool_broken: "that tool is not broken", already_broken: "already broken",
    already_in_front: "already in front", goal_already_revealed: "goal already revealed",
    wrong_phase: "not now", bad_discard: "wrong discard", stale_version: "game moved on",
    wrong_card_type: "that card cannot be played this way",
    bad_rotation: "that card cannot be turned that way",
    bad_tool: "that card does not repair this tool",
    nothing_to_remove: "there is nothing to remove in front of you",
    already_ready: "you are already ready for the next round",
    game_over: "the game is over",
    not_in_edition: "that card is not part of this edition",
    bad_seat: "there is no such seat",
    forbidden: "you are not a player of this game",
    invalid_config: "these settings are not allowed together",
    game_full: "the game is full",
    already_joined: "you are already in this game",
    not_found: "this game no longer exists",
    not_enough_players: "not enough players yet",
    not_creator: "only the creator or a group admin may do that",
    already_started: "the game has already started",
    not_in_game: "you are not in this game",
    chat_busy: "a game is already open in this chat",
    not_in_lobby: "the lobby is closed",
    lobby_full: "every seat is taken",
    not_seated: "you are not in this game",
    too_many_players: "too many players for these settings",
    bad_setting: "that setting is not allowed",
    busy: "many things happen at once: please try again",
    bad_move: "that move is not valid",
    cancelled: "this game was cancelled",
    store_unavailable: "the game store is briefly unavailable: try again",
    rate_limited: "too many requests: wait a moment",
    already_finished: "the game is over" },
  logc: { path_placed: "{who} placed {card} at {x},{y}", rockfall: "{who} caused a rockfall at {x},{y} ({removed} removed)",
    path_removed: "{who} removed the card at {x},{y}", tool_broken: "{who} broke {target}'s {tool}",
    tool_repaired: "{who} repaired {target}'s {tool}", map_used: "{who} looked at goal {goal}",
    goal_revealed: "Goal {goal} revealed: {kind}", discarded: "{who} passed ({n})",
    passed: "{who} passed ({n})", trapped: "{who} trapped {target}", freed: "{who} freed {target}",
    theft_laid: "{who} laid a theft card", hands_off: "{who} removed {target}'s theft",
    hands_swapped: "{who} swapped hands with {target}", inspected: "{who} inspected {target}",
    hats_swapped: "{who} gave {target} a new role", stole: "{who} stole from {target}",
    round_started: "Round {round} starts", round_ended: "Round over", game_finished: "Game over", timeout: "{who} ran out of time", ready: "{who} is ready", discarded_to_remove: "{who} discarded 2 to remove {remove}" },
};

const HANS = {
  title: "矮人矿坑", loading: "加载中…", round: "第 {round}/{rounds} 轮", deck: "牌堆 {n}",
  discardPile: "弃牌 {n}", yourTurn: "轮到你了", turnOf: "轮到 {name}", waiting: "等待中",
  you: "你", computer: "电脑", computerN: "电脑 {n}", fitView: "显示整个迷宫", zoomIn: "放大", zoomOut: "缩小", maze: "迷宫", hand: "你的手牌", offline: "离线", cards: "{n} 张",
  place: "放置", play: "出牌", confirm: "确定", cancel: "取消", rotate: "旋转 180°",
  discard: "弃牌", discardN: "弃 {n} 张", removeWith2: "弃 2 张：移除{what}",
  pickCell: "点击发光的格子", pickAgain: "再点一次卡牌可旋转，然后确定",
  pickCard: "选择要塌方的卡牌", pickGoal: "选择要查看的终点",
  pickTarget: "选择对象", pickDiscard: "选择 1–{max} 张弃掉", pickDiscard1: "点选要弃掉的牌",
  noMoves: "现在无事可做", nextRound: "下一轮", ready: "已准备，等待其他人",
  takeBack: "收回我的座位", steal: "偷 {name}", stealNobody: "没人有金子", stealPrompt: "选择偷谁",
  role: "你的身份", knownGoals: "你看过的终点", knownRoles: "你看过的身份",
  goalN: "终点 {n}", stale: "（可能已变）", none: "—", log: "记录", secrets: "我的秘密",
  players: "玩家", gold: "金子 {n}", roundOver: "本轮结束", gameOver: "游戏结束",
  winners: "获胜：{who}", yourWinnings: "你赢得 {n} 金", finalScores: "最终得分",
  replay: "回放本轮", replayStep: "第 {i}/{n} 步", prev: "上一步", next: "下一步", close: "关闭",
  newGame: "新游戏", computerLevel: "电脑玩家", levels: { easy: "简单", normal: "普通", hard: "困难" }, edition: "版本", classic: "矮人矿坑", expansion: "矮人矿坑 2",
  seats: "人数", start: "开始", join: "加入", leave: "离开", lobby: "大厅",
  spectator: "你在观战", noGame: "没有打开的游戏。请从群组中打开。",
  yourGames: "你的游戏", sessionExpired: "会话已过期，请重新打开。",
  reconnecting: "重新连接中…", stalePlay: "有人先出了牌，已更新。",
  illegal: "不允许：{why}", error: "出错了", language: "语言",
  toolPick: "修理哪个？", pickaxe: "镐", lantern: "灯", cart: "矿车",
  brokenIn: "{tool}已损坏", trapped: "被困", theft: "偷窃", hasGold: "有金子",
  goldRoute: "挖到金子", goldKind: "★ 金矿", stoneKind: "石头", timedOut: "（超时）", openInTelegram: "请从 Telegram 打开（群组或聊天中的游戏按钮）。", cancelled: "这局游戏已取消。", waitingPlayers: "已入座 {n}/{max}", creatorStarts: "由创建者开始游戏", deckEmpty: "牌堆已空",
  win: { diggers: "淘金者", saboteurs: "破坏者", selfish_dwarf: "自私的矮人", blue: "蓝队淘金者",
         green: "绿队淘金者", "blue+green": "蓝队和绿队淘金者" },
  actions: { BREAK_PICKAXE: "破坏镐", BREAK_LANTERN: "破坏灯", BREAK_CART: "破坏矿车",
    REPAIR_PICKAXE: "修理镐", REPAIR_LANTERN: "修理灯", REPAIR_CART: "修理矿车",
    REPAIR_PICKAXE_LANTERN: "修理镐/灯", REPAIR_PICKAXE_CART: "修理镐/矿车",
    REPAIR_LANTERN_CART: "修理灯/矿车", MAP: "地图", ROCKFALL: "塌方", S2_ROCKFALL: "塌方",
    THEFT: "偷窃", HANDS_OFF: "住手", SWAP_YOUR_HAND: "交换手牌", INSPECTION: "调查",
    SWAP_YOUR_HATS: "换身份", TRAPPED: "被困！", FREE_AT_LAST: "自由了！" },
  moves: { break_tool: "{card} → {target}", repair_tool: "修理 {target} 的{tool}",
    trap: "困住 {target}", free: "解救 {target}", hands_off: "移除 {target} 的偷窃",
    swap_hand: "与 {target} 交换手牌", inspect: "查看 {target} 的身份",
    swap_hats: "给 {target} 换身份", theft: "放下偷窃牌", map: "查看终点 {goal}" },
  reasons: { not_your_turn: "还没轮到你", card_not_in_hand: "手中没有这张牌",
    tool_broken: "你的工具坏了", trapped: "你被困住了", cell_taken: "格子已被占用",
    no_neighbour: "必须与卡牌相邻", edge_mismatch: "通道对不上",
    not_connected: "没有连到起点", out_of_bounds: "超出迷宫",
    ladder_next_to_goal: "梯子不能挨着终点", bad_target: "目标不对",
    no_such_tool_broken: "那件工具没坏", already_broken: "已经坏了",
    already_in_front: "已经有了", goal_already_revealed: "终点已翻开",
    wrong_phase: "现在不行", bad_discard: "弃牌不对", stale_version: "游戏已更新",
    wrong_card_type: "这张牌不能这样用",
    bad_rotation: "这张牌不能这样旋转",
    bad_tool: "这张牌不能修理这个工具",
    nothing_to_remove: "你面前没有可移除的牌",
    already_ready: "你已经准备好下一轮了",
    game_over: "游戏已经结束",
    not_in_edition: "这张牌不属于这个版本",
    bad_seat: "没有这个座位",
    forbidden: "你不是这局游戏的玩家",
    invalid_config: "这些设置不能同时使用",
    game_full: "游戏人数已满",
    already_joined: "你已经在这局游戏中了",
    not_found: "这局游戏已不存在",
    not_enough_players: "玩家人数还不够",
    not_creator: "只有创建者或群管理员可以这样做",
    already_started: "游戏已经开始了",
    not_in_game: "你不在这局游戏中",
    chat_busy: "本群已有一局进行中的游戏",
    not_in_lobby: "大厅已关闭",
    lobby_full: "座位已满",
    not_seated: "你不在这局游戏中",
    too_many_players: "以这些设置来说玩家太多了",
    bad_setting: "不允许这个设置",
    busy: "同时发生的操作太多：请再试一次",
    bad_move: "这步棋无效",
    cancelled: "这局游戏已取消",
    store_unavailable: "游戏存储暂时不可用，请再试一次",
    rate_limited: "请求太频繁，请稍等",
    already_finished: "游戏已经结束" },
  logc: { path_placed: "{who} 在 {x},{y} 放了{card}", rockfall: "{who} 让 {x},{y} 塌方（移除了{removed}）",
    path_removed: "{who} 移除了 {x},{y} 的牌", tool_broken: "{who} 破坏了 {target} 的{tool}",
    tool_repaired: "{who} 修好了 {target} 的{tool}", map_used: "{who} 查看了终点 {goal}",
    goal_revealed: "终点 {goal} 翻开：{kind}", discarded: "{who} 弃牌（{n}）", passed: "{who} 弃牌（{n}）",
    trapped: "{who} 困住了 {target}", freed: "{who} 解救了 {target}", theft_laid: "{who} 放下偷窃牌",
    hands_off: "{who} 移除了 {target} 的偷窃", hands_swapped: "{who} 与 {target} 交换手牌",
    inspected: "{who} 调查了 {target}", hats_swapped: "{who} 让 {target} 换身份",
    stole: "{who} 偷了 {target}", round_started: "第 {round} 轮开始", round_ended: "本轮结束",
    game_finished: "游戏结束", timeout: "{who} 超时", ready: "{who} 已准备",
    discarded_to_remove: "{who} 弃 2 张移除 {remove}" },
};

const HANT = {
  title: "矮人礦坑", loading: "載入中…", round: "第 {round}/{rounds} 輪", deck: "牌堆 {n}",
  discardPile: "棄牌 {n}", yourTurn: "輪到你了", turnOf: "輪到 {name}", waiting: "等待中",
  you: "你", computer: "電腦", computerN: "電腦 {n}", fitView: "顯示整個迷宮", zoomIn: "放大", zoomOut: "縮小", maze: "迷宮", hand: "你的手牌", offline: "離線", cards: "{n} 張",
  place: "放置", play: "出牌", confirm: "確定", cancel: "取消", rotate: "旋轉 180°",
  discard: "棄牌", discardN: "棄 {n} 張", removeWith2: "棄 2 張：移除{what}",
  pickCell: "點擊發光的格子", pickAgain: "再點一次卡牌可旋轉，然後確定",
  pickCard: "選擇要坍方的卡牌", pickGoal: "選擇要查看的終點",
  pickTarget: "選擇對象", pickDiscard: "選擇 1–{max} 張棄掉", pickDiscard1: "點選要棄掉的牌",
  noMoves: "現在無事可做", nextRound: "下一輪", ready: "已準備，等待其他人",
  takeBack: "收回我的座位", steal: "偷 {name}", stealNobody: "沒人有金子", stealPrompt: "選擇偷誰",
  role: "你的身分", knownGoals: "你看過的終點", knownRoles: "你看過的身分",
  goalN: "終點 {n}", stale: "（可能已變）", none: "—", log: "紀錄", secrets: "我的秘密",
  players: "玩家", gold: "金子 {n}", roundOver: "本輪結束", gameOver: "遊戲結束",
  winners: "獲勝：{who}", yourWinnings: "你贏得 {n} 金", finalScores: "最終得分",
  replay: "回放本輪", replayStep: "第 {i}/{n} 步", prev: "上一步", next: "下一步", close: "關閉",
  newGame: "新遊戲", computerLevel: "電腦玩家", levels: { easy: "簡單", normal: "普通", hard: "困難" }, edition: "版本", classic: "矮人礦坑", expansion: "矮人礦坑 2",
  seats: "人數", start: "開始", join: "加入", leave: "離開", lobby: "大廳",
  spectator: "你在觀戰", noGame: "沒有開啟的遊戲。請從群組中開啟。",
  yourGames: "你的遊戲", sessionExpired: "工作階段已過期，請重新開啟。",
  reconnecting: "重新連線中…", stalePlay: "有人先出了牌，已更新。",
  illegal: "不允許：{why}", error: "出錯了", language: "語言",
  toolPick: "修理哪個？", pickaxe: "鎬", lantern: "燈", cart: "礦車",
  brokenIn: "{tool}已損壞", trapped: "被困", theft: "偷竊", hasGold: "有金子",
  goldRoute: "挖到金子", goldKind: "★ 金礦", stoneKind: "石頭", timedOut: "（超時）", openInTelegram: "請從 Telegram 開啟（群組或聊天中的遊戲按鈕）。", cancelled: "這局遊戲已取消。", waitingPlayers: "已入座 {n}/{max}", creatorStarts: "由建立者開始遊戲", deckEmpty: "牌堆已空",
  win: { diggers: "淘金者", saboteurs: "破壞者", selfish_dwarf: "自私的矮人", blue: "藍隊淘金者",
         green: "綠隊淘金者", "blue+green": "藍隊和綠隊淘金者" },
  actions: { BREAK_PICKAXE: "破壞鎬", BREAK_LANTERN: "破壞燈", BREAK_CART: "破壞礦車",
    REPAIR_PICKAXE: "修理鎬", REPAIR_LANTERN: "修理燈", REPAIR_CART: "修理礦車",
    REPAIR_PICKAXE_LANTERN: "修理鎬/燈", REPAIR_PICKAXE_CART: "修理鎬/礦車",
    REPAIR_LANTERN_CART: "修理燈/礦車", MAP: "地圖", ROCKFALL: "坍方", S2_ROCKFALL: "坍方",
    THEFT: "偷竊", HANDS_OFF: "住手", SWAP_YOUR_HAND: "交換手牌", INSPECTION: "調查",
    SWAP_YOUR_HATS: "換身分", TRAPPED: "被困！", FREE_AT_LAST: "自由了！" },
  moves: { break_tool: "{card} → {target}", repair_tool: "修理 {target} 的{tool}",
    trap: "困住 {target}", free: "解救 {target}", hands_off: "移除 {target} 的偷竊",
    swap_hand: "與 {target} 交換手牌", inspect: "查看 {target} 的身分",
    swap_hats: "給 {target} 換身分", theft: "放下偷竊牌", map: "查看終點 {goal}" },
  reasons: { not_your_turn: "還沒輪到你", card_not_in_hand: "手中沒有這張牌",
    tool_broken: "你的工具壞了", trapped: "你被困住了", cell_taken: "格子已被佔用",
    no_neighbour: "必須與卡牌相鄰", edge_mismatch: "通道對不上",
    not_connected: "沒有連到起點", out_of_bounds: "超出迷宮",
    ladder_next_to_goal: "梯子不能挨著終點", bad_target: "目標不對",
    no_such_tool_broken: "那件工具沒壞", already_broken: "已經壞了",
    already_in_front: "已經有了", goal_already_revealed: "終點已翻開",
    wrong_phase: "現在不行", bad_discard: "棄牌不對", stale_version: "遊戲已更新",
    wrong_card_type: "這張牌不能這樣用",
    bad_rotation: "這張牌不能這樣旋轉",
    bad_tool: "這張牌不能修理這個工具",
    nothing_to_remove: "你面前沒有可移除的牌",
    already_ready: "你已經準備好下一輪了",
    game_over: "遊戲已經結束",
    not_in_edition: "這張牌不屬於這個版本",
    bad_seat: "沒有這個座位",
    forbidden: "你不是這局遊戲的玩家",
    invalid_config: "這些設定不能同時使用",
    game_full: "遊戲人數已滿",
    already_joined: "你已經在這局遊戲中了",
    not_found: "這局遊戲已不存在",
    not_enough_players: "玩家人數還不夠",
    not_creator: "只有建立者或群組管理員可以這樣做",
    already_started: "遊戲已經開始了",
    not_in_game: "你不在這局遊戲中",
    chat_busy: "本群已有一局進行中的遊戲",
    not_in_lobby: "大廳已關閉",
    lobby_full: "座位已滿",
    not_seated: "你不在這局遊戲中",
    too_many_players: "以這些設定來說玩家太多了",
    bad_setting: "不允許這個設定",
    busy: "同時發生的操作太多：請再試一次",
    bad_move: "這步棋無效",
    cancelled: "這局遊戲已取消",
    store_unavailable: "遊戲儲存暫時無法使用，請再試一次",
    rate_limited: "請求太頻繁，請稍等",
    already_finished: "遊戲已經結束" },
  logc: { path_placed: "{who} 在 {x},{y} 放了{card}", rockfall: "{who} 讓 {x},{y} 坍方（移除了{removed}）",
    path_removed: "{who} 移除了 {x},{y} 的牌", tool_broken: "{who} 破壞了 {target} 的{tool}",
    tool_repaired: "{who} 修好了 {target} 的{tool}", map_used: "{who} 查看了終點 {goal}",
    goal_revealed: "終點 {goal} 翻開：{kind}", discarded: "{who} 棄牌（{n}）", passed: "{who} 棄牌（{n}）",
    trapped: "{who} 困住了 {target}", freed: "{who} 解救了 {target}", theft_laid: "{who} 放下偷竊牌",
    hands_off: "{who} 移除了 {target} 的偷竊", hands_swapped: "{who} 與 {target} 交換手牌",
    inspected: "{who} 調查了 {target}", hats_swapped: "{who} 讓 {target} 換身分",
    stole: "{who} 偷了 {target}", round_started: "第 {round} 輪開始", round_ended: "本輪結束",
    game_finished: "遊戲結束", timeout: "{who} 超時", ready: "{who} 已準備",
    discarded_to_remove: "{who} 棄 2 張移除 {remove}" },
};

export const LANGS = { en: ["English", EN], "zh-hans": ["简体中文", HANS], "zh-hant": ["繁體中文", HANT] };
let current = "en";

// Card and role names are the bot's (core/locales, one source): they come with the
// catalogue (/api/catalogue "names") and join each language's table as `cards` and `roles`.
export function addNames(names) {
  for (const [code, tables] of Object.entries(names || {})) {
    const entry = LANGS[code];
    if (entry) Object.assign(entry[1], tables);
  }
}

export function normalise(code) {
  const c = String(code || "").toLowerCase().replace("_", "-");
  if (!c) return null;
  if (c === "zh-hant" || c.startsWith("zh-tw") || c.startsWith("zh-hk") || c.startsWith("zh-mo")) return "zh-hant";
  if (c.startsWith("zh")) return "zh-hans";
  if (c.startsWith("en")) return "en";
  return null;
}

export function pickLanguage(telegramCode) {
  let stored = null;
  try { stored = localStorage.getItem("sab-lang"); } catch (e) { /* storage blocked */ }
  return (stored && LANGS[stored] && stored) || normalise(telegramCode) ||
    normalise(navigator.language) || "en";
}

export function setLanguage(code, remember = false) {
  current = LANGS[code] ? code : "en";
  document.documentElement.lang = current === "en" ? "en" : current === "zh-hans" ? "zh-Hans" : "zh-Hant";
  if (remember) {
    try { localStorage.setItem("sab-lang", current); } catch (e) { /* storage blocked */ }
  }
}
export const language = () => current;

// Is `name` the word "you" in one of our languages? The local table names its player
// "You" (the server cannot know the browser's language): shown as "you" in the reader's.
export const isYouWord = (name) =>
  Object.values(LANGS).some(([, d]) => String(d.you).toLowerCase() === String(name || "").toLowerCase());

function lookup(table, key) {
  return key.split(".").reduce((o, k) => (o && o[k] !== undefined ? o[k] : undefined), table);
}

export function t(key, params = {}) {
  let text = lookup(LANGS[current][1], key);
  if (text === undefined) text = lookup(EN, key);
  if (text === undefined) return null;
  return String(text).replace(/\{(\w+)\}/g, (_, k) => (params[k] !== undefined && params[k] !== null ? params[k] : ""));
}
