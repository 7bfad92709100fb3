/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device fixture of the kselftest-harness tests that speak the UAPI
 * directly (abi_test, counters_test, hostile_test, isolated_test,
 * topdown_test). Include after kselftest_harness.h and td_common.h.
 *
 * FIXTURE(dev), what TEST_F(dev, ...) gets:
 *   self->fd    TOPDOWN_DEVICE opened read-write (close-on-exec: not
 *               held by what a test runs), any collection an earlier
 *               test left behind stopped;
 *   self->ncpu  the CPUs the module reports (STATUS), at least one;
 * and a teardown that stops collection and closes the file.
 */
#ifndef TD_FIXTURE_H
#define TD_FIXTURE_H

#ifndef TD_COMMON_H
#error "include td_common.h first"
#endif

FIXTURE(dev) {
	int fd;
	int ncpu;
};

FIXTURE_SETUP(dev)
{
	self->fd = open(TOPDOWN_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", TOPDOWN_DEVICE, strerror(errno));
	ioctl(self->fd, TOPDOWN_IOC_STOP);
	self->ncpu = td_nr_cpus(self->fd);
	ASSERT_LT(0, self->ncpu);
}

FIXTURE_TEARDOWN(dev)
{
	ioctl(self->fd, TOPDOWN_IOC_STOP);
	close(self->fd);
}

#endif /* TD_FIXTURE_H */
