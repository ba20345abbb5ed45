"""Kitebase ticket agent."""
