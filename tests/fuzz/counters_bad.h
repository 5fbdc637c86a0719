/* A trace_view.json whose counter events go wrong: samples out of time order, a null value, one
 * without args, a "ts" that is no number, a value given as a string of digits. Written by
 * fuzz_seeds as a seed and by test_counters as a fixture (which checks what is kept). */
#ifndef TL_COUNTERS_BAD_H
#define TL_COUNTERS_BAD_H

#define COUNTERS_BAD_JSON                                                                          \
	"[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"tid\":0,"                            \
	"\"args\":{\"name\":\"NPU MEM\"}},"                                                        \
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":9,\"tid\":0,"                             \
	"\"args\":{\"name\":\"Python\"}},"                                                         \
	"{\"ph\":\"X\",\"name\":\"aten::mm\",\"pid\":9,\"tid\":9,\"ts\":\"100.000\","              \
	"\"dur\":50,\"cat\":\"cpu_op\",\"args\":{}},"                                              \
	"{\"ph\":\"C\",\"name\":\"APP/HBM\",\"pid\":7,\"tid\":0,\"ts\":\"130.000\","               \
	"\"args\":{\"KB\":3.5}},"                                                                  \
	"{\"ph\":\"C\",\"name\":\"APP/HBM\",\"pid\":7,\"tid\":0,\"ts\":\"110.000\","               \
	"\"args\":{\"KB\":2}},"                                                                    \
	"{\"ph\":\"C\",\"name\":\"APP/HBM\",\"pid\":7,\"tid\":0,\"ts\":\"120.000\","               \
	"\"args\":{\"KB\":null}},"                                                                 \
	"{\"ph\":\"C\",\"name\":\"APP/HBM\",\"pid\":7,\"tid\":0,\"ts\":\"140.000\"},"              \
	"{\"ph\":\"C\",\"name\":\"APP/HBM\",\"pid\":7,\"tid\":0,\"ts\":\"x\","                     \
	"\"args\":{\"KB\":9}},"                                                                    \
	"{\"ph\":\"C\",\"name\":\"QoS OTHERS\",\"pid\":8,\"tid\":0,\"ts\":\"105.000\","            \
	"\"args\":{\"value\":\"12.25\"}}]"

#endif
