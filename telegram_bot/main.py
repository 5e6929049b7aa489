"""Process entry point: starts the service, the Mini App's web server and (with a token) the bot.

Placeholder until the service, the Mini App and the bot land; it says what is missing.
"""

from __future__ import annotations

import sys

from core.settings import Settings


def main() -> None:
    settings = Settings.from_env()
    mode = "local mode (no TELEGRAM_BOT_TOKEN)" if settings.local_mode else "bot mode"
    print(f"Saboteur for Telegram: {mode}. The game server is not built yet.", file=sys.stderr)
    sys.exit(1)
