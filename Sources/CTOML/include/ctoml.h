// CTOML shim (work in progress)
