"""The web tools' fetching side: ``fetch_url`` and the pieces it is made of.

- :mod:`.settings`: ``WebSettings`` (env prefix ``WEB_``) and the shared defaults;
- :mod:`.guard`: the SSRF guard, run on every URL and every redirect hop;
- :mod:`.client`: HTTP: one pinned GET per hop, retries with backoff, ``Retry-After``,
  the streamed size cap, a shared TLS context;
- :mod:`.convert`: bytes to text (charsets) and HTML to Markdown, with the nesting bounded;
- :mod:`.worker`: conversion in worker processes that are killed at the deadline;
- :mod:`.fetcher`: ``fetch_markdown``: the direct fetch, then the reader services;
- :mod:`.tool`: the ``fetch_url`` tool the agents call.

Nothing is imported here on purpose: the conversion workers import :mod:`.convert`
alone, without the HTTP client or LangChain.
"""
