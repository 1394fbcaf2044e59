#include "elementwise_tiling.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace actgrad {

uint32_t DtypeSize(DtypeKey dtype) { return dtype == kDtypeFloat ? 4 : 2; }

namespace {

// UB a tile of `tile` elements costs: three double-buffered queues (saved, grad, out), the f32 copies of a widened
// tile, the functor's f32 scratch and its bit masks (tile/8 bytes each). Linear in `tile`.
uint64_t UbBytesForTile(uint64_t tile, DtypeKey dtype, const FunctorNeeds& needs) {
    const uint64_t size = DtypeSize(dtype);
    return 3 * 2 * tile * size + (size == 4 ? 0 : 3 * tile * 4) + needs.tmpTiles * tile * 4 + needs.maskTiles * tile / 8;
}

}  // namespace

uint64_t UbBytesUsed(const ElementwiseGradTiling& t) {
    return UbBytesForTile(t.tileLength, DtypeKey(t.dtype), FunctorNeeds{t.tmpTiles, t.maskTiles});
}

ElementwiseGradTiling ComputeTiling(uint64_t numel, DtypeKey dtype, const SocResources& soc, const FunctorNeeds& needs) {
    if (numel == 0) throw std::invalid_argument("tiling: numel must be > 0 (empty tensors launch no kernel)");
    // the arithmetic below (numel * element size, unit counts) fits 64 bits for every size whose byte count fits
    // int64, the most a tensor can hold; past that it would wrap around
    const uint64_t maxBytes = uint64_t(std::numeric_limits<int64_t>::max());
    if (numel > maxBytes / DtypeSize(dtype))
        throw std::invalid_argument("tiling: " + std::to_string(numel) + " elements of " +
                                    std::to_string(DtypeSize(dtype)) + " bytes exceed the largest tensor (2**63 - 1 "
                                    "bytes)");
    ElementwiseGradTiling t{};
    const uint64_t size = DtypeSize(dtype);
    t.totalLength = numel;
    t.dtype = dtype;
    t.tmpTiles = needs.tmpTiles;
    t.maskTiles = needs.maskTiles;
    t.unitElems = uint32_t(32 / size);

    // blocks: every core once there is enough work, never one below kMinBytesPerBlock
    const uint64_t units = (numel + t.unitElems - 1) / t.unitElems;
    const uint64_t byWork = std::max<uint64_t>(1, numel * size / kMinBytesPerBlock);
    t.blockDim = uint32_t(std::min<uint64_t>({soc.aivCores, byWork, units}));
    t.unitsPerBlock = units / t.blockDim;
    t.blocksWithExtraUnit = uint32_t(units % t.blockDim);

    // tile: as large as UB allows in whole granules (which keeps the tile/8-byte masks 32-byte aligned), but no
    // larger than the largest block needs
    const uint64_t fit = soc.ubBytes * 8 / UbBytesForTile(8, dtype, needs);
    const uint64_t maxTile = fit / kTileGranule * kTileGranule;
    if (maxTile == 0)
        throw std::invalid_argument("tiling: " + std::to_string(soc.ubBytes) + " bytes of UB cannot hold one tile of " +
                                    std::to_string(kTileGranule) + " elements");
    const uint64_t largestBlock = (t.unitsPerBlock + (t.blocksWithExtraUnit ? 1 : 0)) * t.unitElems;
    const uint64_t needed = (largestBlock + kTileGranule - 1) / kTileGranule * kTileGranule;
    t.tileLength = uint32_t(std::min(maxTile, needed));
    return t;
}

}  // namespace actgrad
