"""Feetech STS serial-bus servos (STS3215, the servo of the LeRobot SO-100/SO-101 arms) over the
vendor SDK ``feetech-servo-sdk`` (module ``scservo_sdk``); see ``docs/FEETECH.md``.

tables: the STS control table as data. errors: status error bits and exceptions. bus: SDK
transactions with retries. driver: :class:`~.driver.FeetechDriver`. bench: the driver as a
:class:`actuator_models.bench.Bench`. The emulator lives in ``feetech_emulator`` (never imported here).
"""
