package sparkconnect_test

// A real Spark Connect server killed mid-query. This starts a second
// server of its own, on a free port, with its pid, log, warehouse and
// derby folder in the test's temporary folder (scripts/spark.sh keeps one
// pid file, log and warehouse per cache folder whatever the port, so a
// second `spark.sh start` would clobber the shared server's), and kills
// its whole process group with SIGKILL while a query runs. The shared
// server on 15002 is never touched.
//
// Starting Spark costs 30-60 s of CPU, so this runs only with
// THUND_SOAK=1 (make soak-spark).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/thund-dev/thund/sparkconnect"
	"github.com/thund-dev/thund/sparkconnect/pb"
	"github.com/thund-dev/thund/sparkconnect/sparktest"
)

// startOwnSpark starts a private Spark Connect server and returns its URL
// and a function that kills it (SIGKILL to its process group).
func startOwnSpark(t *testing.T) (string, func()) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "scripts", "spark.sh"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(script, "home").Output()
	if err != nil {
		t.Fatalf("spark.sh home: %v", err)
	}
	home := strings.TrimSpace(string(out))
	py, err := exec.Command(script, "python").Output()
	if err != nil {
		t.Fatalf("spark.sh python: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	logf, err := os.Create(filepath.Join(dir, "connect.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(filepath.Join(home, "bin", "spark-submit"),
		"--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
		"--name", "thund kill test",
		"--master", "local[2]",
		"--conf", "spark.connect.grpc.binding.address=127.0.0.1",
		"--conf", fmt.Sprintf("spark.connect.grpc.binding.port=%d", port),
		"--conf", "spark.driver.host=127.0.0.1",
		"--conf", "spark.driver.bindAddress=127.0.0.1",
		"--conf", "spark.ui.enabled=false",
		"--conf", "spark.sql.warehouse.dir="+filepath.Join(dir, "warehouse"),
		"--conf", "spark.driver.extraJavaOptions=-Dderby.system.home="+dir,
	)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SPARK_HOME="+home, "SPARK_LOCAL_IP=127.0.0.1", "PYSPARK_PYTHON="+strings.TrimSpace(string(py)))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	kill := func() {
		syscall.Kill(-pgid, syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Errorf("the private Spark server (pgid %d) did not die", pgid)
		}
	}
	t.Cleanup(kill)
	url := fmt.Sprintf("sc://127.0.0.1:%d", port)
	for {
		select {
		case <-exited:
			b, _ := os.ReadFile(filepath.Join(dir, "connect.log"))
			t.Fatalf("the private Spark server exited during start-up:\n%s", b)
		default:
		}
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
			c.Close()
			break
		}
		if time.Since(start) > 4*time.Minute {
			t.Fatal("the private Spark server did not listen within 4 minutes")
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("private Spark Connect server on %s (pgid %d) up in %s", url, pgid, time.Since(start).Round(time.Second))
	return url, kill
}

func TestSparkKilledMidQuery(t *testing.T) {
	if os.Getenv("THUND_SOAK") != "1" {
		t.Skip("starts a second Spark server (30-60 s): set THUND_SOAK=1 (make soak-spark)")
	}
	if sparktest.Skipped() {
		t.Skip("THUND_SKIP_SPARK=1")
	}
	url, kill := startOwnSpark(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	c, err := sparkconnect.Dial(context.Background(), url, sparkconnect.Options{CallTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	// Warm up, and prove the server works before it dies.
	if err := c.SQL(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	id, err := c.CreateDataflowGraph(ctx, "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	running := make(chan struct{}, 1)
	plan := &pb.Plan{OpType: &pb.Plan_Root{Root: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELECT count(*) FROM range(100000000000)"}}}}}
	done := make(chan error, 1)
	go func() {
		done <- c.Execute(ctx, "SQL query", plan, func(*pb.ExecutePlanResponse) error {
			select {
			case running <- struct{}{}:
			default:
			}
			return nil
		})
	}()
	select {
	case <-running:
	case err := <-done:
		t.Fatalf("the long query ended before the kill: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the long query sent nothing within 2 minutes")
	}
	time.Sleep(time.Second)
	killed := time.Now()
	kill()
	select {
	case err := <-done:
		if !errors.Is(err, sparkconnect.ErrServerDown) {
			t.Errorf("the query on a killed server = %v, want ErrServerDown", err)
		}
		t.Logf("the running query failed %s after the SIGKILL: %v", time.Since(killed).Round(time.Millisecond), err)
	case <-time.After(hangBound):
		t.Fatalf("the query hung %s after its server was killed", hangBound)
	}
	// Calls after the death fail at once, and so does a new Dial.
	err, _ = bounded(t, "StartRun after the kill", func() error {
		dry, storage := true, "file://"+t.TempDir()
		return c.StartRun(ctx, &pb.PipelineCommand_StartRun{DataflowGraphId: &id, Dry: &dry, Storage: &storage}, nil)
	})
	if !errors.Is(err, sparkconnect.ErrServerDown) {
		t.Errorf("StartRun on a dead server = %v, want ErrServerDown", err)
	}
	err, _ = bounded(t, "Dial after the kill", func() error {
		c2, err := sparkconnect.Dial(ctx, url, sparkconnect.Options{})
		if err == nil {
			c2.Close()
		}
		return err
	})
	if !errors.Is(err, sparkconnect.ErrServerDown) {
		t.Errorf("Dial to the dead server = %v, want ErrServerDown", err)
	}
}
