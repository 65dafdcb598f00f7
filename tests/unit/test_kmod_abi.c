// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kmod ioctl ABI must not change by accident: ioctl numbers and struct
 * layouts are pinned here. Changing one on purpose means a new ioctl number
 * (never a reused one) and updating this test in the same commit.
 */
#include <stddef.h>
#include <tracerd/kmod_abi.h>
#include "test.h"

TEST(version_ioctl_number)
{
	ASSERT_EQ(TRACERD_IOC_VERSION, 0x80287801, "TRACERD_IOC_VERSION");
	ASSERT_EQ(_IOC_TYPE(TRACERD_IOC_VERSION), 'x', "magic");
}

TEST(version_struct_layout)
{
	ASSERT_EQ(sizeof(struct tracerd_version), 40, "size");
	ASSERT_EQ(offsetof(struct tracerd_version, abi_minor), 4, "abi_minor");
	ASSERT_EQ(offsetof(struct tracerd_version, module_version), 8, "module_version");
}

TEST_MAIN()
