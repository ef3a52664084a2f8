"""An eRob driver and its line before :meth:`open`: no network needed (nothing is opened), so
these run without root, unlike tests/test_erob_driver.py."""

import pytest

from actuator_drivers.erob.drive import ErobDriver, ErobError, ErobJoint


def test_reading_an_unopened_driver_says_it_is_not_open():
    """No sample exists before the bring-up: read() says so instead of handing out None states."""
    driver = ErobDriver("no-such-iface", [ErobJoint("shoulder"), ErobJoint("elbow", "erob80_50")])
    with pytest.raises(ErobError, match="no process data yet: the driver is not open"):
        driver.read()
    with pytest.raises(ErobError, match="the driver is not open"):
        driver.master
    with pytest.raises(ErobError, match="the EtherCAT line on 'no-such-iface' is not connected"):
        driver.line.states_text()
    assert [law.max_current for law in driver.laws] == [j.law().max_current for j in driver.joints]


def test_a_joint_that_is_not_an_erob_is_refused():
    with pytest.raises(ValueError, match="joint wrist: actuator 'xl330' is not an eRob"):
        ErobJoint("wrist", "xl330")
