"""Stand-in for torch_npu, for tests/test_npu_bridge.py: a torch_npu on sys.path is all that
actgrad.npu.torch_npu_available() asks about (actgrad never imports torch_npu; the real bridge does)."""
