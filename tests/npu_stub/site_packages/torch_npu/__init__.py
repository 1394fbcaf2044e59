"""Stand-in for torch_npu, for tests/test_npu_bridge.py and tests/test_npu_check.py. A torch_npu on sys.path is all
that actgrad.npu.torch_npu_available() asks about; actgrad.npu_check also imports it and reads its version. It
registers no npu device. include/ holds stand-ins for the headers the bridge uses (as the wheel ships them), and
utils/cpp_extension.py for NpuExtension, so that setup.py's bridge extension can be built against them."""
import os

# torch_npu's major.minor.patch is torch's; a test sets another to see the mismatch reported
__version__ = os.environ.get("ACTGRAD_STUB_TORCH_NPU_VERSION", "2.13.0")
