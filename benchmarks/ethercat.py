"""Cycle-period jitter and late cycles of the eRob EtherCAT loop, driver + emulator on this host.

For each rate (1 kHz and 500 Hz by default) and each scheduling policy (normal, and SCHED_FIFO
for both the driver process and the emulator process, as ``chrt -f 80`` would set), this opens
an emulated eRob80:100 on a fresh veth pair, runs the driver's real-time cycle thread holding a
position with the PD law on, and prints: cycles, mean period, standard deviation, 99th
percentile and max of |period - T|, late cycles (the exchange finished after the next cycle's
start time), periods longer than 1.5 T, lost cycles (no frame or wrong working counter), and the
median and 99th percentile of one cycle's work (PD law, LRW send + receive, decoding).
Speed targets live here, never in tests. Needs root (veth pair, raw sockets, SCHED_FIFO).

Usage: ``sudo .venv/bin/python benchmarks/ethercat.py [--rates 1000 500] [--cycles 3000]``.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Dict

import numpy as np

from actuator_drivers.erob.drive import ErobDriver, ErobJoint
from actuator_drivers.erob.master import LineTiming
from actuator_drivers.erob.pacing import Realtime
from actuator_drivers.ethercat_emulator.emulated import EmulatedJoint, EmulatorProcess
from actuator_drivers.ethercat_emulator.veth import veth_pair

PRIORITY = 80


def run(rate: float, cycles: int, fifo: bool) -> Dict[str, float]:
    period = 1.0 / rate
    policy = os.sched_getscheduler(0), os.sched_getparam(0)
    with veth_pair() as (master_end, slave_end):
        with EmulatorProcess(slave_end, [EmulatedJoint("erob80_100/m6", 3.1, 0.5)], ["--realtime"],
                             fifo_priority=PRIORITY if fifo else None):  # a real-time master: the drive's cycles on the clock
            if fifo:  # the cycle thread inherits the policy of the thread that creates it
                os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(PRIORITY))
            try:
                driver = ErobDriver(master_end, [ErobJoint()], timing=LineTiming(period, receive_timeout=min(period, 0.002)),
                                    pacing=Realtime(), max_lost=1000, command_timeout=None)
                driver.pacing.cycle_starts = []
                with driver:
                    driver.set_kp(25)
                    start_cycles, start_late = driver.cycles, driver.pacing.late_cycles
                    driver.pacing.cycle_starts.clear()
                    driver.pacing.cycle_ends.clear()
                    driver.command(0.2, True)
                    while driver.cycles - start_cycles < cycles:
                        time.sleep(0.05)
                    stamps = np.array(driver.pacing.cycle_starts[:cycles])
                    busy = np.array(driver.pacing.cycle_ends[:cycles]) - stamps
                    late = driver.pacing.late_cycles - start_late
                    lost = driver.counters.failures
            finally:
                os.sched_setscheduler(0, policy[0], policy[1])
    periods = np.diff(stamps)
    deviation = np.abs(periods - period)
    return {"cycles": len(stamps), "mean_us": periods.mean() * 1e6, "std_us": periods.std() * 1e6,
            "p99_us": np.percentile(deviation, 99) * 1e6, "max_us": deviation.max() * 1e6,
            "late": late, "over_1.5T": int(np.sum(periods > 1.5 * period)), "lost": lost,
            "exchange_med_us": np.median(busy) * 1e6, "exchange_p99_us": np.percentile(busy, 99) * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[1000.0, 500.0])
    parser.add_argument("--cycles", type=int, default=3000)
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("benchmarks/ethercat.py needs root (veth pair, raw sockets, SCHED_FIFO)")
    print(f"{'rate':>6} {'policy':>8} {'cycles':>7} {'mean us':>8} {'std us':>7} {'p99 |dT| us':>11} "
          f"{'max |dT| us':>11} {'late':>6} {'>1.5T':>6} {'lost':>5} {'exch med us':>11} {'exch p99 us':>11}")
    for rate in args.rates:
        for fifo in (False, True):
            r = run(rate, args.cycles, fifo)
            print(f"{rate:6.0f} {'FIFO 80' if fifo else 'normal':>8} {r['cycles']:7d} {r['mean_us']:8.1f} "
                  f"{r['std_us']:7.1f} {r['p99_us']:11.1f} {r['max_us']:11.1f} {r['late']:6d} "
                  f"{r['over_1.5T']:6d} {r['lost']:5d} {r['exchange_med_us']:11.1f} {r['exchange_p99_us']:11.1f}", flush=True)


if __name__ == "__main__":
    main()
