"""numba's cache for the compiled search, as `python -m service` points it out: the
operator's own if writable, else a copy of the one the image prepared."""

from __future__ import annotations

from pathlib import Path

from service.ops.jit_cache import JIT_CACHE_VARIABLE, prepare_jit_cache


def test_without_the_variable_numba_keeps_its_own_default() -> None:
    environ: dict[str, str] = {}
    assert prepare_jit_cache(environ) is None
    assert environ == {}


def test_a_writable_cache_is_used_where_it_is_and_kept(tmp_path: Path) -> None:
    environ = {JIT_CACHE_VARIABLE: str(tmp_path)}
    cache = prepare_jit_cache(environ)
    assert cache is not None
    assert (cache.path, cache.temporary) == (tmp_path, False)
    cache.remove_if_temporary()
    assert tmp_path.is_dir()
    assert environ[JIT_CACHE_VARIABLE] == str(tmp_path)


def test_a_read_only_cache_is_copied_where_numba_may_write_and_the_copy_removed(
    tmp_path: Path,
) -> None:
    prepared = tmp_path / "jit"
    (prepared / "game_0123").mkdir(parents=True)
    (prepared / "game_0123" / "search.nbi").write_bytes(b"index")
    environ = {JIT_CACHE_VARIABLE: str(prepared)}
    cache = prepare_jit_cache(environ, may_write=lambda _directory: False)
    assert cache is not None
    assert cache.temporary
    assert environ[JIT_CACHE_VARIABLE] == str(cache.path) != str(prepared)
    assert (cache.path / "game_0123" / "search.nbi").read_bytes() == b"index"
    cache.remove_if_temporary()
    assert not cache.path.exists()
    assert (prepared / "game_0123" / "search.nbi").exists()


def test_a_missing_cache_gives_an_empty_writable_one(tmp_path: Path) -> None:
    environ = {JIT_CACHE_VARIABLE: str(tmp_path / "absent")}
    cache = prepare_jit_cache(environ)
    assert cache is not None
    assert cache.temporary
    assert list(cache.path.iterdir()) == []
    cache.remove_if_temporary()
