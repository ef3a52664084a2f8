"""The part of pysoem's API (``pysoem.Master`` and its ``CdefSlave`` objects) that the eRob
master and driver use, as Protocols: pysoem ships no type information, so these are what
mypy checks the bring-up and the cycle against (names and meanings as in pysoem 1.1)."""

from __future__ import annotations

from typing import Optional, Protocol, Sequence


class SoemSlave(Protocol):
    """One slave of the line: identity from its SII EEPROM, its process-data images, AL state, SDOs."""

    man: int  # vendor ID
    id: int  # product code
    name: str
    output: bytes  # outputs (RxPDO image), written before each send
    input: bytes  # inputs (TxPDO image) of the last exchange
    state: int  # AL state read by Master.read_state
    al_status: int  # AL status code

    def sdo_read(self, index: int, subindex: int, size: int = 0, ca: bool = False) -> bytes: ...  # noqa: E704

    def sdo_write(self, index: int, subindex: int, data: bytes, ca: bool = False) -> None: ...  # noqa: E704

    def dc_sync(self, act: bool, sync0_cycle_time: int, sync0_shift_time: int = 0,  # noqa: E704
                sync1_cycle_time: Optional[int] = None) -> None: ...


class SoemMaster(Protocol):
    """The SOEM master of one network interface."""

    slaves: Sequence[SoemSlave]
    state: int  # the AL state write_state requests
    manual_state_change: bool
    expected_wkc: int

    def config_init(self, usetable: bool = False) -> int: ...  # noqa: E704

    def config_map(self) -> int: ...  # noqa: E704

    def config_dc(self) -> bool: ...  # noqa: E704

    def send_processdata(self) -> int: ...  # noqa: E704

    def receive_processdata(self, timeout: int = 2000) -> int: ...  # noqa: E704

    def read_state(self) -> int: ...  # noqa: E704

    def write_state(self) -> int: ...  # noqa: E704

    def state_check(self, expected_state: int, timeout: int = 50000) -> int: ...  # noqa: E704

    def close(self) -> None: ...  # noqa: E704
