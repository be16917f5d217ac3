"""numba's cache for the compiled search, as `python -m service` points it out: the
operator's own if writable, else a copy of the one the image prepared."""

from __future__ import annotations

from pathlib import Path

from service.ops.jit_cache import prepare_jit_cache


def test_without_a_cache_named_numba_keeps_its_own_default() -> None:
    assert prepare_jit_cache(None) is None


def test_a_writable_cache_is_used_where_it_is_and_kept(tmp_path: Path) -> None:
    cache = prepare_jit_cache(tmp_path)
    assert cache is not None
    assert (cache.path, cache.temporary) == (tmp_path, False)
    cache.remove_if_temporary()
    assert tmp_path.is_dir()


def test_a_read_only_cache_is_copied_where_numba_may_write_and_the_copy_removed(
    tmp_path: Path,
) -> None:
    prepared = tmp_path / "jit"
    (prepared / "game_0123").mkdir(parents=True)
    (prepared / "game_0123" / "search.nbi").write_bytes(b"index")
    cache = prepare_jit_cache(prepared, may_write=lambda _directory: False)
    assert cache is not None
    assert cache.temporary
    assert cache.path != prepared
    assert (cache.path / "game_0123" / "search.nbi").read_bytes() == b"index"
    cache.remove_if_temporary()
    assert not cache.path.exists()
    assert (prepared / "game_0123" / "search.nbi").exists()


def test_a_missing_cache_gives_an_empty_writable_one(tmp_path: Path) -> None:
    cache = prepare_jit_cache(tmp_path / "absent")
    assert cache is not None
    assert cache.temporary
    assert list(cache.path.iterdir()) == []
    cache.remove_if_temporary()
