package sonic

// The tables of a config_db.json, as lfsim reads them. A config_db.json
// is the whole of a SONiC switch's CONFIG_DB (sonic-yang-models'
// doc/Configuration.md, "Config Load and Save"): QoS and buffers beside
// BGP, VLANs, ACLs and the rest. Every table is one of three: read (the
// QoS and buffer tables below, each field handled or refused by name),
// known to hold no QoS lfsim models (nonQoSTables: passed over without a
// word), or neither (a warning names it: lfsim does not know what it
// configures).

// qosTables are the tables lfsim reads, in the order it reads them
// (classification, then buffers, then scheduling, marking and the
// watchdog); SCENARIO.md's mapping table says what each field becomes.
var qosTables = []string{
	"PORT_QOS_MAP",
	"DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP",
	"MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
	"TC_TO_DSCP_MAP", "DSCP_TO_FC_MAP", "EXP_TO_FC_MAP", "MPLS_TC_TO_TC_MAP",
	"BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE",
	"BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST",
	"DEFAULT_LOSSLESS_BUFFER_PARAMETER", "LOSSLESS_TRAFFIC_PATTERN", "CABLE_LENGTH",
	"SCHEDULER", "QUEUE", "WRED_PROFILE", "PFC_WD", "SWITCH_TRIMMING",
}

// QoSTables lists the tables lfsim reads.
func QoSTables() []string { return append([]string(nil), qosTables...) }

// nonQoSTables are the other tables of SONiC's CONFIG_DB: those
// sonic-yang-models defines (a container of that name in
// src/sonic-yang-models/yang-models/*.yang, and the tables of its
// tests/files/sample_config_db.json; sonic-buildimage at commit
// 086b03bd70f9e211aaaf5f6aefe0790b508d2a94). They configure ports,
// routing, management and services, not a port's classification,
// buffers, scheduling, marking or PFC. Some touch traffic in ways lfsim
// does not model at all and are passed over with them: ACL_RULE (an ACL
// may set a packet's traffic class or DSCP), POLICER and
// PORT_STORM_CONTROL (rate limits, of broadcast and unknown traffic for
// the latter), DASH_QOS (a DPU's), SYSTEM_DEFAULTS (tunnel_qos_remap, which
// re-marks tunnelled traffic), PORT (speeds and MTUs: a link's rate is the
// scenario's topology).
var nonQoSTables = map[string]bool{
	"AAA": true, "ACL_RULE": true, "ACL_TABLE": true, "ACL_TABLE_TYPE": true, "ASIC_SENSORS": true,
	"AS_PATH_SET": true, "AUTO_TECHSUPPORT": true, "AUTO_TECHSUPPORT_FEATURE": true,
	"BANNER_MESSAGE": true, "BGP_AGGREGATE_ADDRESS": true, "BGP_ALLOWED_PREFIXES": true,
	"BGP_BBR": true, "BGP_DEVICE_GLOBAL": true, "BGP_GLOBALS": true, "BGP_GLOBALS_AF": true,
	"BGP_GLOBALS_AF_AGGREGATE_ADDR": true, "BGP_GLOBALS_AF_NETWORK": true,
	"BGP_GLOBALS_LISTEN_PREFIX": true, "BGP_INTERNAL_NEIGHBOR": true, "BGP_MONITORS": true,
	"BGP_NEIGHBOR": true, "BGP_NEIGHBOR_AF": true, "BGP_PEER_GROUP": true, "BGP_PEER_GROUP_AF": true,
	"BGP_PEER_RANGE": true, "BGP_SENTINELS": true, "BGP_VOQ_CHASSIS_NEIGHBOR": true, "BMP": true,
	"BREAKOUT_CFG": true, "CHASSIS_MODULE": true, "COMMUNITY_SET": true, "CONSOLE_PORT": true,
	"CONSOLE_SWITCH": true, "COPP_GROUP": true, "COPP_TRAP": true, "CRM": true,
	"DASH_ACL_GROUP": true, "DASH_ACL_IN": true, "DASH_ACL_OUT": true, "DASH_ACL_RULE": true,
	"DASH_APPLIANCE": true, "DASH_ENI": true, "DASH_HA_GLOBAL_CONFIG": true, "DASH_QOS": true,
	"DASH_ROUTE_TABLE": true, "DASH_ROUTING_TYPE": true, "DASH_VNET": true,
	"DASH_VNET_MAPPING_TABLE": true, "DEBUG_COUNTER": true, "DEBUG_COUNTER_DROP_REASON": true,
	"DEBUG_DROP_MONITOR": true, "DEVICE_METADATA": true, "DEVICE_NEIGHBOR": true,
	"DEVICE_NEIGHBOR_METADATA": true, "DHCPV4_RELAY": true, "DHCP_RELAY": true, "DHCP_SERVER": true,
	"DHCP_SERVER_IPV4": true, "DHCP_SERVER_IPV4_CUSTOMIZED_OPTIONS": true,
	"DHCP_SERVER_IPV4_PORT": true, "DHCP_SERVER_IPV4_RANGE": true, "DNS_NAMESERVER": true,
	"DNS_OPTIONS": true, "DPU": true, "DPUS": true, "EVPN_ETHERNET_SEGMENT": true,
	"EVPN_MH_GLOBAL": true, "EXTENDED_COMMUNITY_SET": true, "FABRIC_MONITOR": true,
	"FABRIC_PORT": true, "FEATURE": true, "FG_NHG": true, "FG_NHG_MEMBER": true,
	"FG_NHG_PREFIX": true, "FIPS": true, "FLEX_COUNTER_TABLE": true,
	"FLOW_COUNTER_ROUTE_PATTERN": true, "GNMI": true, "GNMI_CLIENT_CERT": true, "GRPCCLIENT": true,
	"HEARTBEAT": true, "HIGH_FREQUENCY_TELEMETRY_GROUP": true,
	"HIGH_FREQUENCY_TELEMETRY_PROFILE": true, "INTERFACE": true, "KDUMP": true,
	"KUBERNETES_MASTER": true, "LDAP": true, "LDAP_SERVER": true, "LEAK_CONTROL_POLICY": true,
	"LEAK_PROFILE": true, "LLDP": true, "LLDP_PORT": true, "LOGGER": true, "LOOPBACK_INTERFACE": true,
	"MACSEC_PROFILE": true, "MAC_MOVE_GUARD": true, "MCLAG_DOMAIN": true, "MCLAG_INTERFACE": true,
	"MCLAG_UNIQUE_IP": true, "MEMORY_STATISTICS": true, "MGMT_INTERFACE": true, "MGMT_PORT": true,
	"MGMT_VRF_CONFIG": true, "MID_PLANE_BRIDGE": true, "MIRROR_SESSION": true, "MUX_CABLE": true,
	"MUX_LINKMGR": true, "NAT_BINDINGS": true, "NAT_GLOBAL": true, "NAT_POOL": true, "NEIGH": true,
	"NTP": true, "NTP_KEY": true, "NTP_SERVER": true, "NVGRE_TUNNEL": true, "NVGRE_TUNNEL_MAP": true,
	"PASSW_HARDENING": true, "PBH_HASH": true, "PBH_HASH_FIELD": true, "PBH_RULE": true,
	"PBH_TABLE": true, "PEER_SWITCH": true, "POLICER": true, "PORT": true, "PORTCHANNEL": true,
	"PORTCHANNEL_INTERFACE": true, "PORTCHANNEL_MEMBER": true, "PORT_STORM_CONTROL": true,
	"PREFIX": true, "PREFIX_LIST": true, "PREFIX_SET": true, "RADIUS": true, "RADIUS_SERVER": true,
	"REMOTE_DPU": true, "RESTAPI": true, "ROUTE_MAP": true, "ROUTE_MAP_SET": true,
	"ROUTE_REDISTRIBUTE": true, "SAG": true, "SERIAL_CONSOLE": true, "SFLOW": true,
	"SFLOW_COLLECTOR": true, "SFLOW_SESSION": true, "SNMP": true, "SNMP_COMMUNITY": true,
	"SNMP_USER": true, "SRV6_MY_LOCATORS": true, "SRV6_MY_SIDS": true, "SSH_SERVER": true,
	"STATIC_NAPT": true, "STATIC_NAT": true, "STATIC_ROUTE": true, "STORMOND_CONFIG": true,
	"STP": true, "STP_PORT": true, "STP_VLAN": true, "STP_VLAN_PORT": true, "SUBNET_DECAP": true,
	"SUPPRESS_ASIC_SDK_HEALTH_EVENT": true, "SWITCH_FAST_LINKUP": true, "SWITCH_HASH": true,
	"SYSLOG_CONFIG": true, "SYSLOG_CONFIG_FEATURE": true, "SYSLOG_SERVER": true,
	"SYSTEM_DEFAULTS": true, "SYSTEM_PORT": true, "TACPLUS": true, "TACPLUS_SERVER": true,
	"TELEMETRY": true, "TELEMETRY_CLIENT": true, "TUNNEL": true, "VDPU": true, "VERSIONS": true,
	"VLAN": true, "VLAN_INTERFACE": true, "VLAN_MEMBER": true, "VLAN_SUB_INTERFACE": true,
	"VNET": true, "VNET_ROUTE": true, "VNET_ROUTE_TUNNEL": true, "VOQ_INBAND_INTERFACE": true,
	"VRF": true, "VXLAN_EVPN_NVO": true, "VXLAN_TUNNEL": true, "VXLAN_TUNNEL_MAP": true,
	"WARM_RESTART": true, "XCVRD_LOG": true, "ZTP": true,
}
