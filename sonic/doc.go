// Package sonic reads a SONiC switch's configuration, its config_db.json,
// into lfsim's switch keys (SCENARIO.md, "A switch's SONiC
// configuration"): the QoS tables (PORT_QOS_MAP and the maps it binds:
// DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP,
// MAP_PFC_PRIORITY_TO_QUEUE, ...), the buffer tables (BUFFER_POOL,
// BUFFER_PROFILE, BUFFER_PG, BUFFER_QUEUE), the scheduling and marking
// tables (SCHEDULER, QUEUE, WRED_PROFILE) and the PFC watchdog's
// (PFC_WD), with CABLE_LENGTH and the dynamic buffer model's tables read
// and said to have no effect. Read gives the keys as a YAML mapping, the
// one the scenario format decodes under switch.sonic and `lfsim sonic`
// prints, so that the two cannot differ.
//
// The meaning of each field is SONiC's and SAI's: the templates that
// render a switch's configuration (sonic-buildimage
// files/build_templates/qos_config.j2 and buffers_config.j2), the
// CONFIG_DB schema (src/sonic-yang-models: its YANG models and
// doc/Configuration.md), sonic-swss's buffermgrd (cfgmgr/buffermgr.cpp)
// for the profiles it writes, sonic-utilities' pfcwd for the watchdog,
// and the SAI headers (saibuffer.h, saischeduler.h, saiwred.h, saiport.h)
// for what a value does in the ASIC. Each rule below cites the one it
// follows.
//
// Nothing in the file is passed over in silence: a table that configures
// no QoS lfsim models is on a documented list (tables.go); any other table
// it does not read is a warning; a field or value lfsim cannot honour is
// an error naming the table, key and field, or a warning where it has no
// effect on what lfsim models or where lfsim's model approximates it
// (each such warning says when the two agree). SONiC configures ports and
// lfsim's switch profile is one per switch: Read takes the ports'
// settings when every port the tables configure gives the same, names
// the two that differ when not, or reads the one port it is asked for.
//
// The package is a format reader: it imports only the standard library
// and YAML (for the mapping it gives), no model and no part of lfsim.
package sonic
