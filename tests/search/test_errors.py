"""Pasted errors and tracebacks reduced to signatures."""

from __future__ import annotations

import pytest

from app.search.errors import error_field_text, error_phrase, error_signature, looks_like_error, normalise_error

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
    text = ("报错示例：\n```\nAssertionError: Unable to pre-compile async_io\n[INFO] x\n"
            "[ERROR] Failed to execute goal\n```\nValueError: bad value 3")
    assert error_field_text(text).split("\n") == ["AssertionError Unable to pre-compile async_io",
                                                  "Failed to execute goal", "ValueError bad value"]


@pytest.mark.parametrize(("log", "signature"), [
    ("2023-05-01 12:00:00,123 ERROR [main] org.apache.hive.Foo - Required field 'client_protocol' is unset!\n"
     "\tat org.apache.thrift.TServiceClient.receiveBase(TServiceClient.java:79)",
     "[main] org.apache.hive.Foo Required field client_protocol is unset!"),
    ("Exception in thread \"main\" java.lang.RuntimeException: boom\n\tat Main.main(Main.java:3)\n"
     "Caused by: java.net.ConnectException: Connection refused\n\t... 1 more",
     "java.lang.RuntimeException boom java.net.ConnectException Connection refused"),  # the cause, with its wrapper
    ("panic: runtime error: invalid memory address or nil pointer dereference\n"
     "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a0b2c]\n\ngoroutine 1 [running]:\nmain.main()",
     "panic runtime error invalid memory address or nil pointer dereference"),
    ("/usr/bin/ld: main.o: in function `main':\nmain.cpp:(.text+0x1f): undefined reference to `cublasCreate_v2'",
     "main.cpp undefined reference to cublasCreate_v2"),
    ("python: error while loading shared libraries: libcudnn.so: cannot open shared object file: "
     "No such file or directory",
     "python error while loading shared libraries libcudnn.so cannot open shared object file"),
    ("bash: nvcc: command not found", "bash nvcc command not found"),
    # A chained Java message: the innermost cause is the specific one.
    ("TransactionSystemException: Could not commit JDBC transaction; nested exception is java.sql.SQLException: "
     "io.seata.RmTransactionException: Response[ TransactionException[Could not found global transaction xid = "
     "1.2.3.4:8091:115, may be has finished.] ]",
     "TransactionException[Could not found global transaction xid may be has finished.]"),
    # Stack frames name classes, not the failure.
    ("Caused by: java.sql.SQLNonTransientConnectionException: Public Key Retrieval is not allowed\n"
     "\tat com.mysql.cj.jdbc.exceptions.SQLError.createSQLException(SQLError.java:110)",
     "java.sql.SQLNonTransientConnectionException Public Key Retrieval is not allowed"),
    # A C++ exception's mangled name.
    ("Request to ip:9779 failed: N6apache6thrift9transport19TTransportExceptionE: Timed Out",
     "N6apache6thrift9transport19TTransportExceptionE Timed Out"),
    ("2022/05/19 10:03:03 [warn] 13654#13654: *6638791 [lua] v3.lua:151: _request_uri(): https://10.1.6.3:2379: "
     "timeout. Retrying", "[lua] v3.lua _request_uri https timeout. Retrying"),  # a warning, when nothing is worse
    ("2024-01-02 10:00:00 WARN retrying\n2024-01-02 10:00:01 ERROR [main] Job failed: no space left",
     "[main] Job failed no space left"),
    ("2020/12/01 21:49:39 [error] 14690#14690: *34880 [lua] config_etcd.lua:428: failed to fetch data from etcd",
     "[lua] config_etcd.lua failed to fetch data from etcd"),
    # An informational log line, when nothing is worse: its trace ids and addresses are masked.
    ("2020-09-08 18:46:14.920  INFO  703e7547402da3cb,f49d10c0b5b6c30f grpc-default-executor-0 "
     "io.seata.tm.api.DefaultGlobalTransaction [172.18.0.2:8091:46669071613173760] commit status: Committed",
     "grpc-default-executor- io.seata.tm.api.DefaultGlobalTransaction commit status Committed"),
    ("[ERROR (-8)]: Wrong vertex id type: 101", "Wrong vertex id type"),  # a console's error code
])
def test_logs_beyond_python_keep_the_words_that_identify_them(log: str, signature: str) -> None:
    assert looks_like_error(log)
    assert error_signature(log) == signature


def test_a_question_that_mentions_an_error_is_not_a_log() -> None:
    assert not looks_like_error("How do I fix an error when loading the model?")
    assert not looks_like_error("How do I set the log level to INFO for the server?")  # no timestamp


@pytest.mark.parametrize(("pasted", "phrase"), [
    ('Exception in thread "main" java.lang.IllegalArgumentException: Type is required.\n\tat a.B.c(B.java:1)',
     "Type is required."),
    ("ModuleNotFoundError: No module named '_turbomind'", "No module named"),  # up to the variable part
    ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0)", "CUDA out of memory. Tried to"),
    ("how do I fix this", ""),
])
def test_error_phrase_is_the_messages_opening_as_written(pasted: str, phrase: str) -> None:
    assert error_phrase(pasted) == phrase
