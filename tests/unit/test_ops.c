/* test_ops.c - the operation table's derived facts (ops.h): how many sync calls an operation
 * makes, which the results divide the device's flushes by (results.c). */
#include "ops.h"
#include "test.h"

static void test_sync_calls(void)
{
	CHECK_EQ_U(op_sync_calls(op_table[OP_read].flags), 0);
	CHECK_EQ_U(op_sync_calls(op_table[OP_write].flags), 0);
	CHECK_EQ_U(op_sync_calls(op_table[OP_stat].flags), 0);
	CHECK_EQ_U(op_sync_calls(op_table[OP_write_fsync].flags), 1);
	CHECK_EQ_U(op_sync_calls(op_table[OP_create_fdatasync].flags), 1);
	CHECK_EQ_U(op_sync_calls(op_table[OP_append_fsync2].flags), 2);
}

int main(void)
{
	RUN(test_sync_calls);
	return test_summary();
}
