package host

// walkFacadeState is a placeholder until host/walk_facade.go lands.
type walkFacadeState struct{}
