"""eRob (ZeroErr) drives over EtherCAT with pysoem: :mod:`.master` (the line's bring-up: identity,
PDO remap, DC, AL states), :mod:`.drive` (the CiA 402 cyclic exchange and the current PD law),
:mod:`.cia402` (the drive state machine), :mod:`.units`, :mod:`.errors`, :mod:`.bench` (the
bench of the ``erob`` backend). Never imports its emulator."""
