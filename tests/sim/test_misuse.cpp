// Deliberately broken kernels: each one must be rejected with its specific ErrorKind and message, and the message
// must name the kernel, the failing block ("block k/N") and the API.
#include "twin_util.h"
#include "add_kernel.h"

using namespace tu;
using AscendC::HardEvent;
using AscendC::TBuf;
using AscendC::TPipe;
using AscendC::TQue;

namespace {

using InQ = TQue<TPosition::VECIN, 1>;
using OutQ = TQue<TPosition::VECOUT, 1>;

// Launches fn on `blocks` blocks (sequential unless told otherwise).
void Run(const char* name, uint32_t blocks, const std::function<void()>& fn, uint32_t threads = 1) {
    RunBlocks(name, blocks, fn, threads);
}

// The last SimError names the kernel, the block (block < 0: a launch-level error without one) and the API.
void ExpectWhere(const std::string& kernel, int block, int blocks, const std::string& api) {
    const std::string& m = th::LastError();
    CHECK_CONTAINS(m, "[actgrad-sim]");
    CHECK_CONTAINS(m, "kernel '" + kernel + "'");
    if (block >= 0) CHECK_CONTAINS(m, "block " + std::to_string(block) + "/" + std::to_string(blocks) + " on Ascend");
    if (!api.empty()) CHECK_CONTAINS(m, ": " + api + ": ");
}

bool Is(int64_t block) { return AscendC::GetBlockIdx() == block; }

Gm<float>& SharedGm() {
    static Gm<float> gm(4096);
    return gm;
}

// created before any launch: the launcher snapshots the known GM allocations when a launch starts
Gm<float>& g_sharedGm = SharedGm();

// The current block's 64 floats of a GM output, so blocks never write the same bytes.
GlobalTensor<float> BlockSlice(Gm<float>& out) {
    GlobalTensor<float> g;
    g.SetGlobalBuffer(out.data() + 64 * AscendC::GetBlockIdx(), 64);
    return g;
}

GlobalTensor<float> GmView(uint64_t size = 4096, uint64_t offset = 0) {
    GlobalTensor<float> g;
    g.SetGlobalBuffer(SharedGm().data() + offset, size);
    return g;
}

// add_custom through ICPU_RUN_KF on `blocks` blocks of 8 floats each; checks z = x + 1 if the launch returns.
void RunAddKernel(uint32_t blocks) {
    const uint32_t n = blocks * 8;
    Gm<float> x(n), y(n), z(n);
    Gm<AddTiling> t(1);
    for (uint32_t i = 0; i < n; ++i) x[i] = float(i), y[i] = 1.0f;
    t[0] = AddTiling{n, 8};
    ICPU_RUN_KF(add_custom, blocks, x.addr(), y.addr(), z.addr(), GM_ADDR(nullptr), t.addr());
    for (uint32_t i = 0; i < n; ++i) CHECK_EQ(z[i], float(i) + 1.0f);
}

}  // namespace

// ---------------------------------------------------------------------------------------------- UB

TEST(UB_over_allocation_beyond_196608_bytes) {
    EXPECT_SIM_ERROR(ErrorKind::UbOverflow, "beyond the 196608 bytes of UB on Ascend910B2", Run("ub_total", 3, [] {
        TPipe pipe;
        InQ a;
        OutQ b;
        pipe.InitBuffer(a, 2, 65536);
        pipe.InitBuffer(b, 1, Is(1) ? 65537 : 65536);  // block 1 asks for 32 bytes too many
    }));
    ExpectWhere("ub_total", 1, 3, "TPipe::InitBuffer");
    CHECK_CONTAINS(th::LastError(), "(UB overflow)");
}

TEST(UB_65th_buffer) {
    EXPECT_SIM_ERROR(ErrorKind::UbOverflow, "more than 64 buffers", Run("ub_65", 2, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bufs[65];
        for (int i = 0; i < (Is(1) ? 65 : 64); ++i) pipe.InitBuffer(bufs[i], 32);
    }));
    ExpectWhere("ub_65", 1, 2, "TPipe::InitBuffer");
    // queue buffers count too: 32 x 2 + 1
    EXPECT_SIM_ERROR(ErrorKind::UbOverflow, "more than 64 buffers", Run("ub_65q", 1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qs[32];
        for (auto& q : qs) pipe.InitBuffer(q, 2, 32);
        TBuf<TPosition::VECCALC> extra;
        pipe.InitBuffer(extra, 32);
    }));
}

// ---------------------------------------------------------------------------------------------- queue protocol

TEST(EnQue_beyond_depth) {
    EXPECT_SIM_ERROR(ErrorKind::QueueProtocol, "its depth is 1", Run("enque_depth", 2, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 2, 256);
        auto a = q.AllocTensor<float>();
        auto b = q.AllocTensor<float>();
        q.EnQue(a);
        if (Is(1)) q.EnQue(b);
    }));
    ExpectWhere("enque_depth", 1, 2, "TQue::EnQue");
}

TEST(DeQue_of_empty_queue) {
    EXPECT_SIM_ERROR(ErrorKind::QueueProtocol, "the queue is empty", Run("deque_empty", 4, [] {
        TPipe pipe;
        OutQ q;
        pipe.InitBuffer(q, 1, 256);
        if (Is(3)) q.DeQue<float>();
    }));
    ExpectWhere("deque_empty", 3, 4, "TQue::DeQue");
}

TEST(FreeTensor_twice) {
    EXPECT_SIM_ERROR(ErrorKind::QueueProtocol, "already FREE", Run("free_twice", 2, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 256);
        auto t = q.AllocTensor<float>();
        q.FreeTensor(t);
        if (Is(1)) q.FreeTensor(t);
    }));
    ExpectWhere("free_twice", 1, 2, "TQue::FreeTensor");
}

TEST(AllocTensor_with_no_free_buffer) {
    EXPECT_SIM_ERROR(ErrorKind::QueueProtocol, "no free buffer", Run("alloc_full", 3, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 2, 256);
        auto a = q.AllocTensor<float>();
        auto b = q.AllocTensor<float>();
        if (Is(2)) q.AllocTensor<float>();  // both buffers held: the NPU would wait forever
        q.FreeTensor(a);
        q.FreeTensor(b);
    }));
    ExpectWhere("alloc_full", 2, 3, "TQue::AllocTensor");
}

TEST(AllocTensor_before_InitBuffer) {
    EXPECT_SIM_ERROR(ErrorKind::QueueProtocol, "InitBuffer not called", Run("alloc_noinit", 1, [] {
        TPipe pipe;
        InQ q;
        q.AllocTensor<float>();
    }));
    ExpectWhere("alloc_noinit", 0, 1, "TQue::AllocTensor");
}

TEST(FreeTensor_of_enqueued_buffer) {
    EXPECT_SIM_ERROR(ErrorKind::QueueProtocol, "still enqueued", Run("free_enqueued", 1, [] {
        TPipe pipe;
        OutQ q;
        pipe.InitBuffer(q, 1, 256);
        auto t = q.AllocTensor<float>();
        q.EnQue(t);
        q.FreeTensor(t);
    }));
    ExpectWhere("free_enqueued", 0, 1, "TQue::FreeTensor");
}

TEST(EnQue_of_already_enqueued_buffer) {
    EXPECT_SIM_ERROR(ErrorKind::QueueProtocol, "is ENQUE, expected OCCUPIED or DEQUE", Run("enque_twice", 2, [] {
        TPipe pipe;
        TQue<TPosition::VECOUT, 2> q;  // depth 2, so the depth check cannot be what rejects it
        pipe.InitBuffer(q, 1, 256);
        auto t = q.AllocTensor<float>();
        AscendC::Duplicate(t, 1.0f, 64);
        q.EnQue(t);
        if (Is(1)) q.EnQue(t);
        auto u = q.DeQue<float>();
        q.FreeTensor(u);
    }));
    ExpectWhere("enque_twice", 1, 2, "TQue::EnQue");
}

TEST(EnQue_of_foreign_tensor) {
    EXPECT_SIM_ERROR(ErrorKind::QueueProtocol, "does not belong to this queue", Run("enque_foreign", 1, [] {
        TPipe pipe;
        InQ a, b;
        pipe.InitBuffer(a, 1, 256);
        pipe.InitBuffer(b, 1, 256);
        auto t = a.AllocTensor<float>();
        b.EnQue(t);
    }));
    ExpectWhere("enque_foreign", 0, 1, "TQue::EnQue");
}

TEST(EnQue_with_no_event_id_left) {
    // 9 tensors enqueued on MTE2_V at once: the pool has 8 event IDs
    EXPECT_SIM_ERROR(ErrorKind::QueueProtocol, "no event ID left", Run("event_ids", 1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 9> q;
        pipe.InitBuffer(q, 9, 32);
        for (int i = 0; i < 9; ++i) q.EnQue(q.AllocTensor<float>());
    }));
    ExpectWhere("event_ids", 0, 1, "TQue::EnQue");
}

// ---------------------------------------------------------------------------------------------- use after free

TEST(Vector_op_on_freed_tensor) {
    EXPECT_SIM_ERROR(ErrorKind::UseAfterFree, "released by FreeTensor", Run("vec_after_free", 2, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 256);
        auto t = q.AllocTensor<float>();
        AscendC::Duplicate(t, 1.0f, 64);
        q.FreeTensor(t);
        if (Is(1)) AscendC::Add(t, t, t, 64);
    }));
    ExpectWhere("vec_after_free", 1, 2, "Add");
}

TEST(GetValue_on_freed_tensor) {
    EXPECT_SIM_ERROR(ErrorKind::UseAfterFree, "released by FreeTensor", Run("get_after_free", 1, [] {
        TPipe pipe;
        OutQ q;
        pipe.InitBuffer(q, 1, 256);
        auto t = q.AllocTensor<float>();
        q.FreeTensor(t);
        (void)t.GetValue(0);
    }));
    ExpectWhere("get_after_free", 0, 1, "LocalTensor::GetValue");
}

TEST(Stale_tensor_after_realloc_of_same_buffer) {
    // the buffer was freed and handed out again: the old handle is stale even though the slot is OCCUPIED again
    EXPECT_SIM_ERROR(ErrorKind::UseAfterFree, "released", Run("stale_handle", 1, [] {
        TPipe pipe;
        OutQ q;
        pipe.InitBuffer(q, 1, 256);
        auto old = q.AllocTensor<float>();
        q.FreeTensor(old);
        auto fresh = q.AllocTensor<float>();
        AscendC::Duplicate(old, 0.0f, 64);
        q.FreeTensor(fresh);
    }));
    ExpectWhere("stale_handle", 0, 1, "Duplicate");
}

TEST(Use_after_TPipe_Reset) {
    EXPECT_SIM_ERROR(ErrorKind::UseAfterFree, "TPipe::Reset", Run("after_reset", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        auto t = b.Get<float>();
        pipe.Reset();
        AscendC::Duplicate(t, 0.0f, 64);
    }));
    ExpectWhere("after_reset", 0, 1, "Duplicate");
}

// ---------------------------------------------------------------------------------------------- synchronisation

TEST(Vector_reads_VECIN_filled_by_DataCopy_without_EnQue_DeQue) {
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "MTE2 -> V synchronisation is missing", Run("missing_mte2_v", 2, [] {
        TPipe pipe;
        InQ q;
        OutQ o;
        pipe.InitBuffer(q, 1, 256);
        pipe.InitBuffer(o, 1, 256);
        auto x = q.AllocTensor<float>();
        auto z = o.AllocTensor<float>();
        AscendC::DataCopy(x, GmView(64, 64 * AscendC::GetBlockIdx()), 64);
        if (Is(1)) AscendC::Add(z, x, x, 64);  // no EnQue/DeQue between MTE2 and V
        q.FreeTensor(x);
        o.FreeTensor(z);
    }));
    ExpectWhere("missing_mte2_v", 1, 2, "Add");
    CHECK_CONTAINS(th::LastError(), "VECIN buffer at UB offset 0");
}

TEST(DataCopy_out_of_VECOUT_written_by_vector_without_EnQue_DeQue) {
    Gm<float> out(128);
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "V -> MTE3 synchronisation is missing", Run("missing_v_mte3", 2, [&] {
        TPipe pipe;
        OutQ o;
        pipe.InitBuffer(o, 1, 256);
        GlobalTensor<float> g = BlockSlice(out);
        auto z = o.AllocTensor<float>();
        AscendC::Duplicate(z, 3.0f, 64);
        if (Is(1)) {
            AscendC::DataCopy(g, z, 64);
        } else {
            o.EnQue(z);
            z = o.DeQue<float>();
            AscendC::DataCopy(g, z, 64);
        }
        o.FreeTensor(z);
    }));
    ExpectWhere("missing_v_mte3", 1, 2, "DataCopy(UB->GM)");
    CHECK_CONTAINS(th::LastError(), "VECOUT buffer");
}

TEST(Vector_op_on_enqueued_not_dequeued_buffer) {
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "is enqueued", Run("vec_on_enqueued", 1, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 256);
        auto x = q.AllocTensor<float>();
        AscendC::DataCopy(x, GmView(), 64);
        q.EnQue(x);
        AscendC::Adds(x, x, 1.0f, 64);  // still ENQUE: DeQue first
    }));
    ExpectWhere("vec_on_enqueued", 0, 1, "Adds");
}

TEST(DataCopy_out_of_enqueued_not_dequeued_buffer) {
    Gm<float> out(64);
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "is enqueued: DeQue it before copying it out", Run("copy_out_enqueued", 1, [&] {
        TPipe pipe;
        OutQ o;
        pipe.InitBuffer(o, 1, 256);
        GlobalTensor<float> g;
        g.SetGlobalBuffer(out.data(), 64);
        auto z = o.AllocTensor<float>();
        AscendC::Duplicate(z, 3.0f, 64);
        o.EnQue(z);
        AscendC::DataCopy(g, z, 64);  // DeQue forgotten
    }));
    ExpectWhere("copy_out_enqueued", 0, 1, "DataCopy(UB->GM)");
    // enqueued again after a DeQue: the data is synchronised, only the queue state says the copy-out is wrong
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "is enqueued: DeQue it before copying it out", Run("copy_out_reenqueued", 1, [&] {
        TPipe pipe;
        OutQ o;
        pipe.InitBuffer(o, 1, 256);
        GlobalTensor<float> g;
        g.SetGlobalBuffer(out.data(), 64);
        auto z = o.AllocTensor<float>();
        AscendC::Duplicate(z, 3.0f, 64);
        o.EnQue(z);
        z = o.DeQue<float>();
        o.EnQue(z);
        AscendC::DataCopy(g, z, 64);
    }));
    ExpectWhere("copy_out_reenqueued", 0, 1, "DataCopy(UB->GM)");
}

TEST(DataCopy_into_DEQUE_VECIN_buffer) {
    EXPECT_SIM_ERROR(ErrorKind::QueueProtocol, "is DEQUE", Run("copy_into_deque", 2, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 256);
        auto x = q.AllocTensor<float>();
        AscendC::DataCopy(x, GmView(), 64);
        q.EnQue(x);
        auto y = q.DeQue<float>();
        if (Is(1)) AscendC::DataCopy(y, GmView(), 64);  // refilling a consumed buffer without a new AllocTensor
        q.FreeTensor(y);
    }));
    ExpectWhere("copy_into_deque", 1, 2, "DataCopy(GM->UB)");
}

TEST(WaitFlag_without_SetFlag) {
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "was never set", Run("wait_unset", 5, [] {
        if (Is(4)) AscendC::WaitFlag<HardEvent::MTE2_V>(2);
    }));
    ExpectWhere("wait_unset", 4, 5, "WaitFlag");
    CHECK_CONTAINS(th::LastError(), "ID 2");
}

TEST(SetFlag_never_waited) {
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "was never waited for", Run("set_unwaited", 3, [] {
        AscendC::SetFlag<HardEvent::V_MTE3>(0);
        if (!Is(2)) AscendC::WaitFlag<HardEvent::V_MTE3>(0);
    }));
    ExpectWhere("set_unwaited", 2, 3, "kernel end");
}

TEST(SetFlag_twice_without_WaitFlag) {
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "set twice", Run("set_twice", 1, [] {
        AscendC::SetFlag<HardEvent::S_V>(1);
        AscendC::SetFlag<HardEvent::S_V>(1);
    }));
    ExpectWhere("set_twice", 0, 1, "SetFlag");
}

TEST(Event_id_out_of_range_and_cube_event) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "event ID 8 is outside [0, 8)", Run("event_id", 1, [] {
        AscendC::SetFlag<HardEvent::MTE2_V>(8);
    }));
    ExpectWhere("event_id", 0, 1, "SetFlag");
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "cube-core pipes", Run("cube_event", 1, [] {
        AscendC::WaitFlag<HardEvent::MTE1_M>(0);
    }));
    ExpectWhere("cube_event", 0, 1, "WaitFlag");
}

TEST(Missing_MTE3_to_MTE2_sync_on_TBuf_reuse_is_detected) {
    // tile loop over one TBuf with manual flags but without the MTE3 -> MTE2 wait before the next copy-in:
    // on the NPU the second DataCopy(GM->UB) overwrites the buffer while MTE3 may still read it
    Gm<float> out(128);
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "MTE3", Run("war_tbuf", 1, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        auto t = b.Get<float>();
        GlobalTensor<float> go;
        go.SetGlobalBuffer(out.data(), 128);
        for (int tile = 0; tile < 2; ++tile) {
            AscendC::DataCopy(t, GmView(64, 64 * tile), 64);
            Sync<HardEvent::MTE2_MTE3>();
            AscendC::DataCopy(go[64 * tile], t, 64);
        }
    }));
}

// 64 floats of a VECCALC TBuf in a TPipe of their own.
struct CalcTile {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    LocalTensor<float> t;
    CalcTile() {
        pipe.InitBuffer(buf, 256);
        t = buf.Get<float>();
    }
};

TEST(Scalar_read_of_vector_results_without_V_S_sync) {
    // block 1 reads what Adds wrote with the scalar unit before the vector unit is known to be done
    float got[2] = {};
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "V -> S synchronisation", Run("missing_v_s", 2, [&] {
        CalcTile c;
        AscendC::Duplicate(c.t, 1.0f, 64);
        AscendC::Adds(c.t, c.t, 1.0f, 64);
        if (!Is(1)) Sync<HardEvent::V_S>();
        got[AscendC::GetBlockIdx()] = c.t.GetValue(3);
    }));
    ExpectWhere("missing_v_s", 1, 2, "LocalTensor::GetValue");
    CHECK_EQ(got[0], 2.0f);
    // a PIPE_ALL barrier orders it too; a later vector write needs the next synchronisation
    float barrier = 0.0f;
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "V -> S synchronisation", Run("v_s_each_write", 1, [&] {
        CalcTile c;
        AscendC::Duplicate(c.t, 3.0f, 64);
        AscendC::PipeBarrier<PIPE_ALL>();
        barrier = c.t.GetValue(63);
        AscendC::Muls(c.t, c.t, 2.0f, 64);
        barrier += c.t.GetValue(0);
    }));
    CHECK_EQ(barrier, 3.0f);
}

TEST(Vector_write_to_TBuf_being_copied_out_without_MTE3_V_sync) {
    Gm<float> out(128);
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "is still being copied out", Run("missing_mte3_v", 2, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        GlobalTensor<float> g = BlockSlice(out);
        auto t = b.Get<float>();
        AscendC::Duplicate(t, 1.0f, 64);
        Sync<HardEvent::V_MTE3>();
        AscendC::DataCopy(g, t, 64);
        if (!Is(1)) Sync<HardEvent::MTE3_V>();
        AscendC::Duplicate(t, 2.0f, 64);  // block 1: overwrites t while MTE3 may still read it
    }));
    ExpectWhere("missing_mte3_v", 1, 2, "Duplicate");
    CHECK_CONTAINS(th::LastError(), "MTE3 -> V flag");
}

TEST(DataCopy_refills_TBuf_read_by_vector_without_V_MTE2_sync) {
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "V -> MTE2 synchronisation is missing", Run("missing_v_mte2", 2, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 512);
        auto x = b.Get<float>(64);
        auto y = b.GetWithOffset<float>(64, 256);
        for (int tile = 0; tile < 2; ++tile) {
            AscendC::DataCopy(x, GmView(64, 64 * tile), 64);  // block 1, tile 1: Muls may still be reading x
            Sync<HardEvent::MTE2_V>();
            AscendC::Muls(y, x, 2.0f, 64);
            if (!Is(1)) Sync<HardEvent::V_MTE2>();
        }
    }));
    ExpectWhere("missing_v_mte2", 1, 2, "DataCopy(GM->UB)");
}

TEST(DataCopy_out_of_TBuf_filled_by_DataCopy_without_MTE2_MTE3_sync) {
    Gm<float> out(128);
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "is copied out without an MTE2 -> MTE3 synchronisation",
                     Run("missing_mte2_mte3", 2, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        GlobalTensor<float> g = BlockSlice(out);
        auto t = b.Get<float>();
        AscendC::DataCopy(t, GmView(64, 64 * AscendC::GetBlockIdx()), 64);
        if (!Is(1)) Sync<HardEvent::MTE2_MTE3>();
        AscendC::DataCopy(g, t, 64);  // block 1: MTE3 may read t before MTE2 has filled it
    }));
    ExpectWhere("missing_mte2_mte3", 1, 2, "DataCopy(UB->GM)");
}

TEST(DataCopy_out_of_VECIN_buffer_after_DeQue_without_MTE2_MTE3_sync) {
    // the hidden sync of a VECIN DeQue is MTE2 -> V: MTE3 is not ordered after the copy-in (copy-through needs
    // an MTE2 -> MTE3 flag, or the vendor's TQueBind<VECIN, VECOUT>)
    Gm<float> out(128);
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "is copied out without an MTE2 -> MTE3 synchronisation",
                     Run("vecin_copy_out", 2, [&] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 256);
        GlobalTensor<float> g = BlockSlice(out);
        auto x = q.AllocTensor<float>();
        AscendC::DataCopy(x, GmView(64, 64 * AscendC::GetBlockIdx()), 64);
        q.EnQue(x);
        x = q.DeQue<float>();
        if (!Is(1)) Sync<HardEvent::MTE2_MTE3>();
        AscendC::DataCopy(g, x, 64);  // block 1: MTE3 may read x before MTE2 has filled it
        q.FreeTensor(x);
    }));
    ExpectWhere("vecin_copy_out", 1, 2, "DataCopy(UB->GM)");
    CHECK_CONTAINS(th::LastError(), "VECIN buffer at UB offset 0");
    // a vector read after the DeQue orders MTE3 after the copy-in only with a V -> MTE3 sync behind it
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "is copied out without an MTE2 -> MTE3 synchronisation",
                     Run("vecin_read_copy_out", 2, [&] {
        TPipe pipe;
        InQ q;
        OutQ o;
        pipe.InitBuffer(q, 1, 256);
        pipe.InitBuffer(o, 1, 256);
        GlobalTensor<float> g = BlockSlice(out);
        auto x = q.AllocTensor<float>();
        AscendC::DataCopy(x, GmView(64, 64 * AscendC::GetBlockIdx()), 64);
        q.EnQue(x);
        x = q.DeQue<float>();
        auto y = o.AllocTensor<float>();
        AscendC::Muls(y, x, 2.0f, 64);
        if (!Is(1)) Sync<HardEvent::V_MTE3>();
        AscendC::DataCopy(g, x, 64);
        o.FreeTensor(y);
        q.FreeTensor(x);
    }));
    ExpectWhere("vecin_read_copy_out", 1, 2, "DataCopy(UB->GM)");
}

TEST(DataCopy_refills_VECIN_buffer_after_copy_out_and_FreeTensor_AllocTensor_without_MTE3_MTE2_sync) {
    // the hidden sync of a VECIN FreeTensor/AllocTensor is V -> MTE2: a refill is not ordered after a copy-out
    Gm<float> out(128);
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "is refilled while MTE3 may still be copying it out",
                     Run("vecin_refill_after_copy_out", 2, [&] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 256);
        GlobalTensor<float> g = BlockSlice(out);
        for (int tile = 0; tile < 2; ++tile) {
            auto x = q.AllocTensor<float>();
            if (tile > 0 && !Is(1)) {
                Sync<HardEvent::MTE3_MTE2>();
            }
            AscendC::DataCopy(x, GmView(64, 64 * tile), 64);  // block 1, tile 1: MTE3 may still read x
            q.EnQue(x);
            x = q.DeQue<float>();
            Sync<HardEvent::MTE2_MTE3>();
            AscendC::DataCopy(g, x, 64);
            q.FreeTensor(x);
        }
    }));
    ExpectWhere("vecin_refill_after_copy_out", 1, 2, "DataCopy(GM->UB)");
    CHECK_CONTAINS(th::LastError(), "VECIN buffer at UB offset 0");
}

TEST(DataCopy_refills_VECOUT_buffer_after_copy_out_and_FreeTensor_AllocTensor_without_MTE3_MTE2_sync) {
    // the hidden sync of a VECOUT FreeTensor/AllocTensor is MTE3 -> V: MTE2 is not ordered after the copy-out
    Gm<float> out(128);
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "is refilled while MTE3 may still be copying it out",
                     Run("vecout_refill_after_copy_out", 2, [&] {
        TPipe pipe;
        OutQ o;
        pipe.InitBuffer(o, 1, 256);
        GlobalTensor<float> g = BlockSlice(out);
        for (int tile = 0; tile < 2; ++tile) {
            auto y = o.AllocTensor<float>();
            if (tile == 0) {
                AscendC::Duplicate(y, 1.0f, 64);
            } else {
                if (!Is(1)) Sync<HardEvent::MTE3_MTE2>();
                AscendC::DataCopy(y, GmView(64), 64);  // block 1: MTE3 may still read y
                Sync<HardEvent::MTE2_V>();
                AscendC::Adds(y, y, 1.0f, 64);
            }
            o.EnQue(y);
            y = o.DeQue<float>();
            AscendC::DataCopy(g, y, 64);
            o.FreeTensor(y);
        }
    }));
    ExpectWhere("vecout_refill_after_copy_out", 1, 2, "DataCopy(GM->UB)");
    CHECK_CONTAINS(th::LastError(), "VECOUT buffer at UB offset 0");
}

TEST(Vector_write_to_VECIN_buffer_after_copy_out_and_FreeTensor_AllocTensor_without_MTE3_V_sync) {
    // a VECIN FreeTensor/AllocTensor does not order the vector unit after a copy-out of the buffer
    Gm<float> out(128);
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "is still being copied out", Run("vecin_write_after_copy_out", 2, [&] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 256);
        GlobalTensor<float> g = BlockSlice(out);
        auto x = q.AllocTensor<float>();
        AscendC::DataCopy(x, GmView(64), 64);
        q.EnQue(x);
        x = q.DeQue<float>();
        Sync<HardEvent::MTE2_MTE3>();
        AscendC::DataCopy(g, x, 64);
        q.FreeTensor(x);
        x = q.AllocTensor<float>();
        if (!Is(1)) Sync<HardEvent::MTE3_V>();
        AscendC::Duplicate(x, 0.0f, 64);  // block 1: overwrites x while MTE3 may still read it
        q.FreeTensor(x);
    }));
    ExpectWhere("vecin_write_after_copy_out", 1, 2, "Duplicate");
    CHECK_CONTAINS(th::LastError(), "VECIN buffer at UB offset 0");
}

TEST(DataCopy_refills_VECOUT_buffer_used_by_vector_after_FreeTensor_AllocTensor_without_V_MTE2_sync) {
    // a VECOUT FreeTensor/AllocTensor orders MTE3 -> V, not V -> MTE2
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "V -> MTE2 synchronisation is missing", Run("vecout_refill_after_vector", 2, [] {
        TPipe pipe;
        OutQ o;
        pipe.InitBuffer(o, 1, 256);
        auto y = o.AllocTensor<float>();
        AscendC::Duplicate(y, 1.0f, 64);
        o.FreeTensor(y);
        y = o.AllocTensor<float>();
        if (!Is(1)) Sync<HardEvent::V_MTE2>();
        AscendC::DataCopy(y, GmView(64), 64);  // block 1: Duplicate may still be writing y
        o.FreeTensor(y);
    }));
    ExpectWhere("vecout_refill_after_vector", 1, 2, "DataCopy(GM->UB)");
    CHECK_CONTAINS(th::LastError(), "VECOUT buffer at UB offset 0");
}

// ---------------------------------------------------------------------------------------------- alignment

TEST(DataCopy_count_bytes_not_multiple_of_32) {
    EXPECT_SIM_ERROR(ErrorKind::Alignment, "is not a multiple of 32", Run("copy_7", 2, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 256);
        auto x = q.AllocTensor<float>();
        AscendC::DataCopy(x, GmView(), Is(1) ? 7 : 8);
        q.FreeTensor(x);
    }));
    ExpectWhere("copy_7", 1, 2, "DataCopy(GM->UB)");
    CHECK_CONTAINS(th::LastError(), "28 bytes");
    EXPECT_SIM_ERROR(ErrorKind::Alignment, "is not a multiple of 32", Run("copy_out_3", 1, [] {
        TPipe pipe;
        OutQ q;
        pipe.InitBuffer(q, 1, 256);
        auto x = q.AllocTensor<half>();
        AscendC::Duplicate(x, half(1.0f), 128);
        q.EnQue(x);
        auto y = q.DeQue<half>();
        GlobalTensor<half> g;
        g.SetGlobalBuffer(reinterpret_cast<half*>(SharedGm().data()), 64);
        AscendC::DataCopy(g, y, 3);
    }));
    ExpectWhere("copy_out_3", 0, 1, "DataCopy(UB->GM)");
}

TEST(UB_operand_not_32_byte_aligned) {
    EXPECT_SIM_ERROR(ErrorKind::Alignment, "is not 32-byte aligned", Run("unaligned", 3, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        auto t = b.Get<float>();
        AscendC::Duplicate(t, 0.0f, 256);
        auto v = t[Is(2) ? 3 : 8];  // block 2: 12 bytes into the buffer
        AscendC::Add(v, t[128], t[192], 64);
    }));
    ExpectWhere("unaligned", 2, 3, "Add");
    CHECK_CONTAINS(th::LastError(), "dst starts at UB offset 12");
}

// ---------------------------------------------------------------------------------------------- bounds

TEST(LocalTensor_index_and_offset_beyond_size) {
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "index 64 is not below the tensor size 64", Run("lt_index", 2, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        auto t = b.Get<float>();
        t.SetValue(Is(1) ? 64 : 63, 1.0f);
    }));
    ExpectWhere("lt_index", 1, 2, "LocalTensor::SetValue");
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "offset 64 is not below", Run("lt_offset", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        auto t = b.Get<float>();
        auto tail = t[64];  // an empty view is already out of bounds
        (void)tail;
    }));
    ExpectWhere("lt_offset", 0, 1, "LocalTensor::operator[]");
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "needs 512 bytes but the tensor has only 256", Run("vec_count", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, b;
        pipe.InitBuffer(a, 256);
        pipe.InitBuffer(b, 1024);
        AscendC::Exp(b.Get<float>(), a.Get<float>(), 128);
    }));
    ExpectWhere("vec_count", 0, 1, "Exp");
}

TEST(GlobalTensor_access_beyond_SetGlobalBuffer_size) {
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "exceed the global tensor size 32", Run("gt_bounds", 2, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 256);
        auto x = q.AllocTensor<float>();
        AscendC::DataCopy(x, GmView(32), Is(1) ? 64 : 32);
        q.FreeTensor(x);
    }));
    ExpectWhere("gt_bounds", 1, 2, "DataCopy(GM->UB)");
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "exceed the global tensor size", Run("gt_getvalue", 1, [] {
        (void)GmView(32).GetValue(32);
    }));
    ExpectWhere("gt_getvalue", 0, 1, "GlobalTensor::GetValue");
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "is beyond the global buffer", Run("gt_view", 1, [] {
        (void)GmView(32)[33];
    }));
    ExpectWhere("gt_view", 0, 1, "GlobalTensor::operator[]");
}

TEST(GM_access_beyond_the_GmAlloc_allocation) {
    Gm<float> small(32);  // 128 bytes
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "outside every allocation the launcher knows", Run("gm_alloc_bounds", 3, [&] {
        TPipe pipe;
        OutQ q;
        pipe.InitBuffer(q, 1, 512);
        GlobalTensor<float> g;
        g.SetGlobalBuffer(small.data());  // unsized: only the allocation bounds it
        auto t = q.AllocTensor<float>();
        AscendC::Duplicate(t, 0.0f, 128);
        q.EnQue(t);
        t = q.DeQue<float>();
        if (Is(2)) AscendC::DataCopy(g, t, 40);  // 160 bytes into a 128-byte allocation
        q.FreeTensor(t);
    }));
    ExpectWhere("gm_alloc_bounds", 2, 3, "DataCopy(UB->GM)");
    // a host pointer the launcher does not know at all
    std::vector<float> host(64);
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "outside every allocation", Run("gm_unknown", 1, [&] {
        GlobalTensor<float> g;
        g.SetGlobalBuffer(host.data(), 64);
        (void)g.GetValue(0);
    }));
    ExpectWhere("gm_unknown", 0, 1, "GlobalTensor::GetValue");
    // ... unless it is registered for the launch
    float v = -1;
    actgrad_sim::Launch("gm_registered", [&] {
        GlobalTensor<float> g;
        g.SetGlobalBuffer(host.data(), 64);
        v = g.GetValue(63);
    }, 1, actgrad_sim::LaunchOptions{1, {{uintptr_t(host.data()), uintptr_t(host.data() + 64)}}});
    CHECK_EQ(v, 0.0f);
}

TEST(GlobalTensor_without_buffer) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "SetGlobalBuffer not called", Run("gt_nobuf", 1, [] {
        GlobalTensor<float> g;
        (void)g.GetValue(0);
    }));
    ExpectWhere("gt_nobuf", 0, 1, "GlobalTensor::GetValue");
}

TEST(GM_address_not_aligned_to_element_size) {
    Gm<uint8_t> bytes(256);
    EXPECT_SIM_ERROR(ErrorKind::Alignment, "is not aligned to sizeof(T) = 4", Run("gm_misaligned", 2, [&] {
        GlobalTensor<float> g;
        g.SetGlobalBuffer(reinterpret_cast<float*>(bytes.data() + (Is(1) ? 2 : 0)), 16);
        (void)g.GetValue(0);
    }));
    ExpectWhere("gm_misaligned", 1, 2, "GlobalTensor::GetValue");
}

TEST(LocalTensor_never_obtained_from_a_buffer) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "never obtained from AllocTensor/DeQue/TBuf::Get", Run("lt_default", 1, [] {
        TPipe pipe;
        LocalTensor<float> t;
        AscendC::Duplicate(t, 0.0f, 8);
    }));
    ExpectWhere("lt_default", 0, 1, "Duplicate");
}

TEST(Two_blocks_write_the_same_GM_bytes) {
    Gm<float> out(64);
    EXPECT_SIM_ERROR(ErrorKind::GmWriteConflict, "blocks 1 and 2 both write GM bytes", Run("gm_conflict", 3, [&] {
        TPipe pipe;
        OutQ q;
        pipe.InitBuffer(q, 1, 256);
        GlobalTensor<float> g;
        g.SetGlobalBuffer(out.data(), 64);
        auto t = q.AllocTensor<float>();
        AscendC::Duplicate(t, float(AscendC::GetBlockIdx()), 64);
        q.EnQue(t);
        t = q.DeQue<float>();
        // block 0 writes [0, 8), block 1 [8, 24), block 2 [16, 24): blocks 1 and 2 overlap by 8 floats
        const int64_t b = AscendC::GetBlockIdx();
        AscendC::DataCopy(g[b == 0 ? 0 : (b == 1 ? 8 : 16)], t, b == 1 ? 16 : 8);
        q.FreeTensor(t);
    }, 2));
    ExpectWhere("gm_conflict", -1, 3, "");
    // scalar SetValue writes count too
    EXPECT_SIM_ERROR(ErrorKind::GmWriteConflict, "blocks 0 and 1 both write", Run("gm_conflict_scalar", 2, [&] {
        GlobalTensor<float> g;
        g.SetGlobalBuffer(out.data(), 64);
        g.SetValue(40 + AscendC::GetBlockIdx() * 0, 1.0f);
    }));
    ExpectWhere("gm_conflict_scalar", -1, 2, "");
}

// A block's own writes may come in any order and overlap each other (they are merged per block); another block's
// write into a gap between them is fine, one that reaches into them is not.
TEST(A_block_rewriting_its_own_GM_bytes_is_not_a_conflict) {
    Gm<float> out(64);
    struct Span { uint32_t start, length; };
    // block 0 writes [16, 24), [0, 8) and [4, 12), in that order; block 1 writes `other`
    auto writes = [&](std::vector<Span> other) {
        return [&out, other] {
            GlobalTensor<float> g;
            g.SetGlobalBuffer(out.data(), 64);
            const std::vector<Span> mine = AscendC::GetBlockIdx() == 0 ? std::vector<Span>{{16, 8}, {0, 8}, {4, 8}} : other;
            for (const Span& w : mine)
                for (uint32_t i = w.start; i < w.start + w.length; ++i) g.SetValue(i, 1.0f);
        };
    };
    Run("gm_own_rewrite", 2, writes({{12, 4}, {24, 8}}));  // the gap [12, 16) and past the end
    EXPECT_SIM_ERROR(ErrorKind::GmWriteConflict, "blocks 0 and 1 both write GM bytes",
                     Run("gm_into_merged", 2, writes({{10, 4}})));  // into [4, 12)
}

// ---------------------------------------------------------------------------------------------- arguments

TEST(Compare_and_Compares_count_not_multiple_of_256_bytes) {
    EXPECT_SIM_ERROR(ErrorKind::Alignment, "is not a multiple of 256", Run("compare_32", 2, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        auto t = b.Get<float>();
        auto m = b.GetWithOffset<uint8_t>(32, 512);
        AscendC::Duplicate(t, 0.0f, 64);
        AscendC::Compare(m, t, t, AscendC::CMPMODE::LT, Is(1) ? 32 : 64);
    }));
    ExpectWhere("compare_32", 1, 2, "Compare");
    CHECK_CONTAINS(th::LastError(), "128 bytes");
    EXPECT_SIM_ERROR(ErrorKind::Alignment, "is not a multiple of 256", Run("compares_100", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        auto t = b.Get<half>();
        AscendC::Compares(b.GetWithOffset<uint8_t>(32, 512), t, half(0.0f), AscendC::CMPMODE::GT, 100);
    }));
    ExpectWhere("compares_100", 0, 1, "Compares");
}

TEST(Compare_int32_with_non_EQ_mode) {
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "int32_t compares only with EQ, got GE", Run("cmp_int32", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        auto t = b.Get<int32_t>();
        AscendC::Compares(b.GetWithOffset<uint8_t>(32, 512), t, 0, AscendC::CMPMODE::GE, 64);
    }));
    ExpectWhere("cmp_int32", 0, 1, "Compares");
}

TEST(Partial_src_dst_overlap_in_Add) {
    EXPECT_SIM_ERROR(ErrorKind::Overlap, "partially overlaps src0", Run("overlap_add", 2, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 2048);
        auto t = b.Get<float>();
        AscendC::Duplicate(t, 1.0f, 512);
        AscendC::Add(Is(1) ? t[8] : t[256], t, t[128], 64);  // dst 32 bytes after src0, 256 bytes long
    }));
    ExpectWhere("overlap_add", 1, 2, "Add");
}

TEST(Negative_count) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "count -1 is negative", Run("neg_count", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        auto t = b.Get<float>();
        AscendC::Muls(t, t, 2.0f, -1);
    }));
    ExpectWhere("neg_count", 0, 1, "Muls");
}

TEST(Unsupported_Cast_pair_and_round_mode) {
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "float -> bfloat16_t does not accept CAST_NONE on Ascend910B2", Run("cast_bf16_none", 2, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        auto f = b.Get<float>();
        AscendC::Duplicate(f, 1.0f, 64);
        AscendC::Cast(b.GetWithOffset<bfloat16_t>(64, 512), f, Is(1) ? AscendC::RoundMode::CAST_NONE : AscendC::RoundMode::CAST_RINT, 64);
    }));
    ExpectWhere("cast_bf16_none", 1, 2, "Cast");
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "int32_t -> float does not accept CAST_ODD", Run("cast_i32_odd", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        AscendC::Cast(b.GetWithOffset<float>(64, 512), b.Get<int32_t>(), AscendC::RoundMode::CAST_ODD, 64);
    }));
    ExpectWhere("cast_i32_odd", 0, 1, "Cast");
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "no half -> bfloat16_t conversion on Ascend910B2", Run("cast_h_bf16", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        AscendC::Cast(b.GetWithOffset<bfloat16_t>(64, 512), b.Get<half>(), AscendC::RoundMode::CAST_RINT, 64);
    }));
    ExpectWhere("cast_h_bf16", 0, 1, "Cast");
}

TEST(Widening_Cast_in_place) {
    EXPECT_SIM_ERROR(ErrorKind::Overlap, "widening half -> float in place", Run("cast_widen_inplace", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        auto f = b.Get<float>();
        AscendC::Cast(f, f.ReinterpretCast<half>(), AscendC::RoundMode::CAST_NONE, 128);
    }));
    ExpectWhere("cast_widen_inplace", 0, 1, "Cast");
}

TEST(High_level_tmp_buffer_too_small) {
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "sharedTmpBuffer needs 2048 bytes", Run("erf_tmp", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> x, y, tmp;
        pipe.InitBuffer(x, 256);
        pipe.InitBuffer(y, 256);
        pipe.InitBuffer(tmp, 1024);
        AscendC::Erf(y.Get<half>(), x.Get<half>(), tmp.Get<uint8_t>(), 128);
    }));
    ExpectWhere("erf_tmp", 0, 1, "Erf");
}

TEST(DataCopyPad_padding_beyond_32_bytes_and_bad_blockLen) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "exceeds 32 bytes", Run("pad_big", 1, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 512);
        auto x = q.AllocTensor<float>();
        AscendC::DataCopyPad(x, GmView(), AscendC::DataCopyExtParams{1, 16, 0, 0, 0},
                             AscendC::DataCopyPadExtParams<float>{true, 9, 0, 0.0f});  // 36 bytes of left pad
        q.FreeTensor(x);
    }));
    ExpectWhere("pad_big", 0, 1, "DataCopyPad(GM->UB)");
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "not a multiple of sizeof(float)", Run("pad_len", 1, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 512);
        auto x = q.AllocTensor<float>();
        AscendC::DataCopyPad(x, GmView(), AscendC::DataCopyExtParams{1, 10, 0, 0, 0}, AscendC::DataCopyPadExtParams<float>{});
        q.FreeTensor(x);
    }));
    ExpectWhere("pad_len", 0, 1, "DataCopyPad(GM->UB)");
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "blockCount 4096 exceeds 4095", Run("copy_blocks", 1, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 512);
        auto x = q.AllocTensor<float>();
        AscendC::DataCopy(x, GmView(), AscendC::DataCopyParams{4096, 1, 0, 0});
    }));
    ExpectWhere("copy_blocks", 0, 1, "DataCopy(GM->UB, DataCopyParams)");
}

TEST(DataCopyPad_gm_read_past_allocation_with_unaligned_srcStride) {
    Gm<float> g(2, 9);  // a 9-byte allocation
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "outside every allocation", Run("pad_stride", 1, [&] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 512);
        GlobalTensor<float> gt;
        gt.SetGlobalBuffer(g.data());
        auto x = q.AllocTensor<float>();
        // rows of 4 bytes with a 2-byte GM gap: row 1 reads bytes [6, 10) of a 9-byte allocation
        AscendC::DataCopyPad(x, gt, AscendC::DataCopyExtParams{2, 4, 2, 0, 0}, AscendC::DataCopyPadExtParams<float>{});
        q.FreeTensor(x);
    }));
}

// ---------------------------------------------------------------------------------------------- SoC support

TEST(DataCopyPad_on_Ascend310P) {
    actgrad_sim::SetSoc("Ascend310P");
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "DataCopyPad is not available on Ascend310P", Run("pad_310p", 2, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 256);
        auto x = q.AllocTensor<float>();
        if (Is(1)) AscendC::DataCopyPad(x, GmView(), AscendC::DataCopyExtParams{1, 20, 0, 0, 0}, AscendC::DataCopyPadExtParams<float>{});
        q.FreeTensor(x);
    }));
    ExpectWhere("pad_310p", 1, 2, "DataCopyPad(GM->UB)");
    CHECK_CONTAINS(th::LastError(), "on Ascend310P");
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "not available on Ascend310P", Run("pad_out_310p", 1, [] {
        TPipe pipe;
        OutQ q;
        pipe.InitBuffer(q, 1, 256);
        auto x = q.AllocTensor<float>();
        AscendC::Duplicate(x, 0.0f, 64);
        q.EnQue(x);
        x = q.DeQue<float>();
        AscendC::DataCopyPad(GmView(), x, AscendC::DataCopyExtParams{1, 20, 0, 0, 0});
    }));
    ExpectWhere("pad_out_310p", 0, 1, "DataCopyPad(UB->GM)");
}

TEST(bf16_Add_on_Ascend910B) {
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "bfloat16_t arithmetic is not available on Ascend910B2", Run("bf16_add", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        auto t = b.Get<bfloat16_t>();
        AscendC::Add(t, t, t, 128);
    }));
    ExpectWhere("bf16_add", 0, 1, "Add");
    for (const char* soc : {"Ascend910B1", "Ascend910B3", "Ascend910B4", "Ascend910_93"}) {
        actgrad_sim::SetSoc(soc);
        EXPECT_SIM_ERROR(ErrorKind::Unsupported, "bfloat16_t arithmetic", Run("bf16_muls", 1, [] {
            TPipe pipe;
            TBuf<TPosition::VECCALC> b;
            pipe.InitBuffer(b, 256);
            auto t = b.Get<bfloat16_t>();
            AscendC::Muls(t, t, bfloat16_t(2.0f), 128);
        }));
        CHECK_CONTAINS(th::LastError(), soc);
    }
}

TEST(Select_mode_1_with_UB_carved_into_reserved_top_8KiB) {
    EXPECT_SIM_ERROR(ErrorKind::UbOverflow, "use the top 8192 bytes of UB as scratch on Ascend910B2", Run("select_reserved", 2, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b, big;
        pipe.InitBuffer(b, 1024);
        pipe.InitBuffer(big, Is(1) ? 190000 : 180000);  // block 1 ends beyond 184 KiB
        auto t = b.Get<float>();
        auto m = b.GetWithOffset<uint8_t>(32, 768);
        AscendC::Duplicate(t, 1.0f, 128);
        AscendC::Select(t, m, t, 0.0f, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
    }));
    ExpectWhere("select_reserved", 1, 2, "Select");
    // mode 0 does not use the scratch area; on 950 there is no such reserve
    Run("select_mode0", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b, big;
        pipe.InitBuffer(b, 1024);
        pipe.InitBuffer(big, 190000);
        auto t = b.Get<float>();
        auto m = b.GetWithOffset<uint8_t>(32, 768);
        AscendC::Duplicate(t, 1.0f, 128);
        AscendC::Select(t, m, t, t, AscendC::SELMODE::VSEL_CMPMASK_SPR, 64);
    });
}

// ---------------------------------------------------------------------------------------------- pipe / launch

TEST(Second_live_TPipe) {
    EXPECT_SIM_ERROR(ErrorKind::Launch, "a second TPipe is alive", Run("two_pipes", 2, [] {
        TPipe a;
        if (Is(1)) TPipe b;
    }));
    ExpectWhere("two_pipes", 1, 2, "TPipe::TPipe");
    // sequential pipes are fine
    Run("pipes_in_sequence", 2, [] {
        { TPipe a; }
        TPipe b;
    });
}

TEST(Second_TPipe_after_Destroy_is_allowed) {
    Run("destroy_then_new", 1, [] {
        TPipe a;
        a.Destroy();  // ascendc-api.md §2.4: Destroy releases the pipe and allows creating another TPipe
        TPipe b;
        TBuf<TPosition::VECCALC> t;
        b.InitBuffer(t, 256);
        AscendC::Duplicate(t.Get<float>(), 1.0f, 64);
    });
}

TEST(TPipe_Reset_releases_queue_event_ids) {
    Run("reset_events", 1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 8> q;
        pipe.InitBuffer(q, 8, 32);
        for (int i = 0; i < 8; ++i) q.EnQue(q.AllocTensor<float>());
        pipe.Reset();  // ascendc-api.md §2.4: release all buffers/event IDs
        InQ fresh;
        pipe.InitBuffer(fresh, 1, 32);
        fresh.EnQue(fresh.AllocTensor<float>());
    });
}

TEST(ICPU_RUN_KF_without_SetKernelMode_AIV) {
    auto* x = static_cast<float*>(AscendC::GmAlloc(64));
    auto* t = static_cast<AddTiling*>(AscendC::GmAlloc(sizeof(AddTiling)));
    *t = AddTiling{16, 8};
    EXPECT_SIM_ERROR(ErrorKind::Launch, "SetKernelMode(KernelMode::AIV_MODE)",
                     ICPU_RUN_KF(add_custom, 2, (GM_ADDR)x, (GM_ADDR)x, (GM_ADDR)x, (GM_ADDR) nullptr, (GM_ADDR)t));
    ExpectWhere("add_custom", -1, 2, "");
    CHECK_CONTAINS(th::LastError(), "ICPU_RUN_KF");
    AscendC::SetKernelMode(KernelMode::AIC_MODE);
    EXPECT_SIM_ERROR(ErrorKind::Launch, "vector kernels only",
                     ICPU_RUN_KF(add_custom, 2, (GM_ADDR)x, (GM_ADDR)x, (GM_ADDR)x, (GM_ADDR) nullptr, (GM_ADDR)t));
    AscendC::GmFree(x);
    AscendC::GmFree(t);
}

TEST(ICPU_RUN_KF_AIV_blockDim_beyond_50_on_2201) {
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    RunAddKernel(50);
    EXPECT_SIM_ERROR(ErrorKind::Launch, "blockDim 51 exceeds the max core num of Ascend910B2", RunAddKernel(51));
    ExpectWhere("add_custom", -1, 51, "");
    CHECK_CONTAINS(th::LastError(), "at most 50 blocks for an AIV kernel");
    for (const char* soc : {"Ascend910B1", "Ascend910B3", "Ascend910B4", "Ascend910_93"}) {
        actgrad_sim::SetSoc(soc);
        EXPECT_SIM_ERROR(ErrorKind::Launch, "blockDim 51 exceeds the max core num of " + std::string(soc), RunAddKernel(51));
    }
}

TEST(AIV_blockDim_beyond_50_outside_ICPU_RUN_KF_on_2201_or_on_other_SoCs) {
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    for (const char* soc : {"Ascend310P", "Ascend950"}) {
        actgrad_sim::SetSoc(soc);
        RunAddKernel(51);
    }
    actgrad_sim::SetSoc("Ascend910B2");
    Run("twin_launch_51", 51, [] {});  // the twin's own launcher (the torch ops' path) has no such limit
}

TEST(blockDim_0) {
    EXPECT_SIM_ERROR(ErrorKind::Launch, "blockDim 0 is outside [1, 65535]", Run("no_blocks", 0, [] {}));
    ExpectWhere("no_blocks", -1, 0, "");
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    EXPECT_SIM_ERROR(ErrorKind::Launch, "blockDim 0", ICPU_RUN_KF(add_custom, 0, GM_ADDR(nullptr), GM_ADDR(nullptr),
                                                                  GM_ADDR(nullptr), GM_ADDR(nullptr), GM_ADDR(nullptr)));
    ExpectWhere("add_custom", -1, 0, "");
    EXPECT_SIM_ERROR(ErrorKind::Launch, "blockDim 65536", Run("too_many_blocks", 65536, [] {}));
}

TEST(API_called_outside_a_kernel_launch) {
    EXPECT_SIM_ERROR(ErrorKind::Launch, "called outside a kernel launch", AscendC::GetBlockIdx());
    CHECK_CONTAINS(th::LastError(), "outside a kernel launch: GetBlockIdx: ");
    EXPECT_SIM_ERROR(ErrorKind::Launch, "called outside a kernel launch", TPipe());
}

TEST(TBuf_misuse) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "InitBuffer was not called", Run("tbuf_noinit", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        b.Get<float>();
    }));
    ExpectWhere("tbuf_noinit", 0, 1, "TBuf::Get");
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "buffer length is 0", Run("tbuf_zero", 1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 0);
    }));
    ExpectWhere("tbuf_zero", 0, 1, "TPipe::InitBuffer");
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "buffer count 0 is outside [1, 64]", Run("que_zero", 1, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 0, 256);
    }));
    ExpectWhere("que_zero", 0, 1, "TPipe::InitBuffer");
}

TEST(Error_from_a_worker_thread_names_its_block) {
    // the same misuse run on 7 threads: the lowest failing block is reported
    EXPECT_SIM_ERROR(ErrorKind::QueueProtocol, "the queue is empty", Run("threaded", 40, [] {
        TPipe pipe;
        InQ q;
        pipe.InitBuffer(q, 1, 256);
        if (AscendC::GetBlockIdx() >= 37) q.DeQue<float>();
    }, 7));
    ExpectWhere("threaded", 37, 40, "TQue::DeQue");
}

TEST_MAIN()
