#!/usr/bin/env python3
"""Surge on several GPUs, on paper: halo bytes, halo work and transfer time per step for the SPHERIC Test 2
water column cut into slabs (and into 3-D blocks), from the halo model that the CPU ranks' measured bytes
confirm and the H200's measured cost per particle-step. Every input is named below with where it comes
from; run it to print the tables of docs/perf/2026-12-05-rank-exchanges.md."""

# Measured (docs/perf records): the H200's cost of one fluid particle-step.
NS_PER_PARTICLE_STEP = {
    # dam break, summation density, cubic spline at 2 spacings, half cells, CUDA graphs, counting index
    # build: 16,777,216 particles at 10.619 ms/step (2026-12-04-continuity-graphics.md, call 4)
    "graphics (summation, cubic, 2 dp)": 10.619e6 / 16_777_216,
    # scenes/spheric2dam.toml, DualSPHysics' settings (continuity, Wendland, h = 2 dp): 10,438,578 fluid
    # particles at 39.716 ms/step (2026-12-03-spheric2dam-half-cells-peers.md, 13M)
    "engineering (continuity, Wendland, h = 2 dp)": 39.716e6 / 10_438_578,
}
# Halo layers on each side of a cut: halo_supports x support / spacing. Summation: 2 x 2 dp; continuity
# with Wendland at support 4 dp: 1 x 4 dp. Both 4 layers.
HALO_LAYERS = {"graphics (summation, cubic, 2 dp)": 4, "engineering (continuity, Wendland, h = 2 dp)": 4}
RECORD_BYTES = 48  # ParticleRecord
# What a halo copy still costs, as a share of an owned particle's step, once the solver skips what the copy's
# owner computes (RankWork, sim/sph/rank_hooks.h; WCSPH): every copy goes through the index stage; with
# summation density the half of the copies within one support also through the density pass. Stage shares
# of the H200's step at 16.8M (2026-12-04-continuity-graphics.md, stages without graphs): summation index
# 1.393, density 3.334 of 10.874 ms; continuity index 1.623 of 8.465 ms (its pressure pass, 0.287, reads no
# neighbours and is counted with it).
COPY_SHARE_WITH_RANK_WORK = {
    "graphics (summation, cubic, 2 dp)": (1.393 + 0.5 * 3.334) / 10.874,
    "engineering (continuity, Wendland, h = 2 dp)": (1.623 + 0.287) / 8.465,
}

# Specifications, not measurements (no multi-GPU machine has been lent): NVLink 4 on an H200 SXM, 900 GB/s
# both directions together, 450 GB/s each way, to any GPU of the host through NVSwitch; one InfiniBand NDR
# port per GPU, 400 Gb/s = 50 GB/s each way. What NCCL reaches of them is left as a factor.
NVLINK_GBS, INFINIBAND_GBS, REACHED = 450.0, 50.0, 0.8

# The SPHERIC Test 2 water column (scenes/spheric2_dam_break.toml): 1.228 x 1.0 x 0.55 m; slabs cut
# across x (the longest axis), each face 1.0 x 0.55 m while the column stands.
COLUMN = (1.228, 1.0, 0.55)
PER_GPU = 50e6  # the weak-scaling size


def spacing(total):
    volume = COLUMN[0] * COLUMN[1] * COLUMN[2]
    return (volume / total) ** (1 / 3)


def slab_case(gpus, per_gpu, layers):
    dp = spacing(gpus * per_gpu)
    face = COLUMN[1] * COLUMN[2] / dp**2  # particles in one layer across the cut
    sides = min(2, gpus - 1)  # an interior rank's cuts
    copies = sides * layers * face  # received = sent, by symmetry
    return dp, face, copies, copies / sides  # copies over one cut, one way


def block_case(gpus_per_axis, per_gpu, layers):
    total = per_gpu * gpus_per_axis**3
    dp = spacing(total)
    n = [c / dp / gpus_per_axis for c in COLUMN]  # a block's particles along each axis
    faces = [n[1] * n[2], n[0] * n[2], n[0] * n[1]]
    copies = 2 * layers * sum(faces)  # an interior block, faces only (edges add about 1 %)
    # A host's 8 GPUs hold a 2 x 2 x 2 cube of blocks: along each axis one neighbour is on the host
    # (NVLink), the other on another host (InfiniBand). Three faces' copies cross the GPU's one port.
    return dp, copies, layers * sum(faces)


def main():
    print("Weak scaling, 50M fluid particles a GPU, slabs; an interior rank (two cuts; one at 2 GPUs)")
    print("| settings | GPUs | spacing [mm] | halo copies a rank | halo work | bytes a rank a step | "
          "NVLink [ms] | IB, one cut [ms] | step on 1 GPU [ms] | on G GPUs, no overlap [ms] | efficiency | "
          "with RankWork |")
    for name, ns in NS_PER_PARTICLE_STEP.items():
        layers = HALO_LAYERS[name]
        one = PER_GPU * ns * 1e-6
        for gpus in (2, 8, 64):
            dp, face, copies, per_cut = slab_case(gpus, PER_GPU, layers)
            byte_count = copies * RECORD_BYTES
            nvlink_ms = byte_count / (NVLINK_GBS * REACHED * 1e9) * 1e3
            ib_ms = per_cut * RECORD_BYTES / (INFINIBAND_GBS * REACHED * 1e9) * 1e3 if gpus > 8 else 0.0
            step = (PER_GPU + copies) * ns * 1e-6 + max(nvlink_ms, ib_ms)
            lean = (PER_GPU + copies * COPY_SHARE_WITH_RANK_WORK[name]) * ns * 1e-6 + max(nvlink_ms, ib_ms)
            print(f"| {name} | {gpus} | {dp * 1e3:.3f} | {copies / 1e6:.2f}M | {copies / PER_GPU:.1%} | "
                  f"{byte_count / 1e6:.0f} MB | {nvlink_ms:.2f} | {ib_ms:.2f} | {one:.1f} | {step:.1f} | "
                  f"{one / step:.2f} | {one / lean:.2f} |")
    print()
    print("64 GPUs as 4 x 4 x 4 blocks of the column instead of slabs (an interior block, six faces; three over "
          "InfiniBand)")
    for name, ns in NS_PER_PARTICLE_STEP.items():
        dp, copies, over_network = block_case(4, PER_GPU, HALO_LAYERS[name])
        ib_ms = over_network * RECORD_BYTES / (INFINIBAND_GBS * REACHED * 1e9) * 1e3
        one = PER_GPU * ns * 1e-6
        step = (PER_GPU + copies) * ns * 1e-6 + ib_ms
        lean = (PER_GPU + copies * COPY_SHARE_WITH_RANK_WORK[name]) * ns * 1e-6 + ib_ms
        print(f"| {name} | 64 | {dp * 1e3:.3f} | {copies / 1e6:.2f}M | {copies / PER_GPU:.1%} | "
              f"{copies * RECORD_BYTES / 1e6:.0f} MB | - | {ib_ms:.2f} | {one:.1f} | {step:.1f} | "
              f"{one / step:.2f} | {one / lean:.2f} |")
    print()
    print("Strong scaling, 100M fluid particles, 1 -> 2 GPUs (one cut, NVLink)")
    for name, ns in NS_PER_PARTICLE_STEP.items():
        dp, face, copies, _ = slab_case(2, 50e6, HALO_LAYERS[name])
        one = 100e6 * ns * 1e-6
        nvlink_ms = copies * RECORD_BYTES / (NVLINK_GBS * REACHED * 1e9) * 1e3
        two = (50e6 + copies) * ns * 1e-6 + nvlink_ms
        lean = (50e6 + copies * COPY_SHARE_WITH_RANK_WORK[name]) * ns * 1e-6 + nvlink_ms
        print(f"| {name} | {one:.1f} ms | {two:.1f} ms | speed-up {one / two:.2f}; with RankWork "
              f"{one / lean:.2f} |")


if __name__ == "__main__":
    main()
