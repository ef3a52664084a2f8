"""An EtherCAT slave in software on a veth pair: :mod:`.frames` (EtherCAT frames), :mod:`.esc`
(ESC registers, SII, AL states, FMMU), :mod:`.coe` (CoE SDO and PDO mapping), :mod:`.drive`
(an emulated eRob: CiA 402 + shaft; the server), :mod:`.veth`, :mod:`.emulated` and
:mod:`.bench` (start an emulator process, then open the real driver or bench on it: the
``erob_emulator`` backend)."""
