"""icetable: the command line that ties referee, vision, calibration and webapp together."""
