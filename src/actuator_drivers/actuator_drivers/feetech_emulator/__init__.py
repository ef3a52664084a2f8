"""An emulated Feetech STS bus on a pseudo-terminal (firmware, bus, fault injection); see
``docs/FEETECH.md``. Test and demo code only: the driver (``actuator_drivers.feetech``) never
imports it."""
