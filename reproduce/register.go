package reproduce

// The reproductions, in the order `lfsim reproduce` lists them (the
// issue's order); each is one file of this package and one folder of
// scenarios/reproduce/.
func init() {
	for _, r := range []Reproduction{dctcpQueue, ecmpCollisions, ibccVictim, pfcDeadlock, dcqcnFluid, irnVsPFC, perftestConnectX, perftestWriteEDR, ncclTestsNDR, ncclTestsH800, pfcUnfairness, iwarpMathis, hpccWebSearch, hpccHadoop} {
		Register(r)
	}
}
