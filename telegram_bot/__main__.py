"""``python -m telegram_bot`` starts the whole product (bot, Mini App, service)."""

from telegram_bot.main import main

if __name__ == "__main__":
    main()
