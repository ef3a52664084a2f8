"""The family-neutral core of the emulated serial buses on a pseudo-terminal (test and demo code
only; no driver imports it): :mod:`.framing` (Protocol-1.0-style packets), :mod:`.firmware` (one
servo's control-table memory, instructions and shaft), :mod:`.emulator` (the pty bus, lockstep
clock, fault injection) and :mod:`.faults`. A family's emulator subpackage supplies its
firmware rules, instruction set and (for another framing) its parser."""
