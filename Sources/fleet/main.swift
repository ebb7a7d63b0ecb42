import FleetCLI

FleetCLI.main()
