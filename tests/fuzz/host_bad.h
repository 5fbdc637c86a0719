/* A profile DB whose host tables are damaged in every way the host readers must survive:
 * written by fuzz_seeds as a seed and by test_host as a fixture (which checks what is kept). */
#ifndef TL_HOST_BAD_H
#define TL_HOST_BAD_H

#define HOST_BAD_SQL                                                                               \
	"CREATE TABLE META_DATA (name TEXT,value TEXT);"                                           \
	"INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','1.0.0');"                                 \
	"CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"                             \
	"INSERT INTO STRING_IDS VALUES (1,'MatMul'),(2,'launch'),(3,'aten::mm');"                  \
	"CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,globalTid INTEGER,"     \
	"connectionId INTEGER PRIMARY KEY,name INTEGER);"                                          \
	"INSERT INTO CANN_API VALUES (300,310,10000,7,3,2),(100,110,10000,7,1,2),"                 \
	"(200,NULL,10000,7,2,2),(250,240,10000,7,4,2),(NULL,5,10000,7,5,2);"                       \
	"CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId "          \
	"INTEGER,globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,"       \
	"streamId INTEGER,taskId INTEGER,modelId INTEGER);"                                        \
	"INSERT INTO TASK VALUES (150,160,0,1,10,1,1,4294967295,1,1,0),"                           \
	"(250,260,0,2,11,1,1,4294967295,1,2,0),(320,330,0,3,12,1,1,4294967295,1,3,0),"             \
	"(400,410,0,99,13,1,1,4294967295,1,4,0),(500,510,0,NULL,14,1,1,4294967295,1,5,0);"         \
	"CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY);"          \
	"INSERT INTO COMPUTE_TASK_INFO VALUES (1,10),(1,11),(1,12),(1,13),(1,14);"                 \
	"CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId "     \
	"INTEGER, name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes "         \
	"INTEGER, inputShapes INTEGER, callchainId INTEGER, type INTEGER);"                        \
	"INSERT INTO PYTORCH_API VALUES ('90','350',7,70,3,-1,0,NULL,NULL,NULL,50001),"            \
	"('95','abc',7,71,3,-1,0,NULL,NULL,NULL,50001),(NULL,'5',7,72,3,-1,0,NULL,NULL,NULL,"      \
	"50001),('80','85',8,NULL,NULL,NULL,NULL,NULL,NULL,NULL,50003);"                           \
	"CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);"                          \
	"INSERT INTO CONNECTION_IDS VALUES (70,1),(70,3),(70,99),(70,NULL),(71,2),(77,3);"

#endif
