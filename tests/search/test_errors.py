"""Pasted errors and tracebacks reduced to signatures."""

from __future__ import annotations

from app.search.errors import error_field_text, error_signature, looks_like_error, normalise_error

TRACEBACK = """Traceback (most recent call last):
  File "/home/u/train.py", line 42, in <module>
    main()
  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl
    return forward_call(*args, **kwargs)
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 3; 23.65 GiB total capacity)
"""


def test_looks_like_error_recognises_tracebacks_and_error_lines_only() -> None:
    assert looks_like_error(TRACEBACK)
    assert looks_like_error("RuntimeError: Error building extension 'fused_adam'")
    assert not looks_like_error("how to set pad_token_id")
    assert not looks_like_error("显存不足怎么办")


def test_error_signature_keeps_type_and_message_without_variable_parts() -> None:
    assert error_signature(TRACEBACK) == "torch.cuda.OutOfMemoryError CUDA out of memory. Tried to allocate"


def test_error_signature_drops_boilerplate_lines() -> None:
    pasted = ("RuntimeError: CUDA error: device-side assert triggered\n"
              "CUDA kernel errors might be asynchronously reported at some other API call")
    assert error_signature(pasted) == "RuntimeError CUDA error device-side assert triggered"


def test_normalise_error_masks_paths_numbers_addresses_and_quotes() -> None:
    line = "ImportError: cannot import name 'cache' from 'functools' (/usr/lib/python3.8/functools.py) at 0x7f3a"
    assert normalise_error(line) == "ImportError cannot import name cache from functools at"


def test_same_error_with_other_numbers_gives_same_signature() -> None:
    first = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79 GiB)"
    second = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB"
    assert error_signature(first) == error_signature(second)


def test_error_field_collects_every_error_line_of_an_entry() -> None:
    text = "报错示例：\n```\nAssertionError: Unable to pre-compile async_io\n[ERROR] x\n```\nValueError: bad value 3"
    assert error_field_text(text).split("\n") == ["AssertionError Unable to pre-compile async_io",
                                                  "ValueError bad value"]
