"""APScheduler jobs, all registered in build_scheduler(settings, ...)."""

from bot.jobs.scheduler import build_scheduler

__all__ = ["build_scheduler"]
