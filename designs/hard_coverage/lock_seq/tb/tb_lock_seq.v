`timescale 1ns/1ps
// Self-checking testbench for lock_seq: directed sequences (unlock, each abort,
// relock, lockout and its expiry) then 6000 cycles of biased random entry, where
// bytes are mostly the code bytes so that deep entries happen. A behavioural
// model of the lock is updated at each rising edge; unlocked, lockout and fails
// are checked every cycle.
module tb_lock_seq;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        valid, relock;
    reg  [7:0] data;
    wire       unlocked, lockout;
    wire [1:0] fails;

    lock_seq dut (.clk(clk), .rst_n(rst_n), .valid(valid), .data(data), .relock(relock),
                  .unlocked(unlocked), .lockout(lockout), .fails(fails));

    always #5 clk = ~clk;

    reg [31:0] seed;
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    // model: m_state 0 idle, 1..3 entry, 4 open, 5 lockout
    integer m_state, m_fail, m_timer;
    integer errors, n, r;
    integer n_open, n_lock;
    reg [7:0] code [0:3];

    task check;
        begin
            if (unlocked !== (m_state == 4) || lockout !== (m_state == 5) || fails !== m_fail[1:0]) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: unlocked=%b lockout=%b fails=%0d expected state=%0d fails=%0d",
                             $time, unlocked, lockout, fails, m_state, m_fail);
            end
        end
    endtask

    task model_step;
        begin
            case (m_state)
                0: if (valid && data == code[0]) m_state = 1;
                1, 2, 3: begin
                    if (relock) m_state = 0;
                    else if (valid) begin
                        if (data == code[m_state]) begin
                            if (m_state == 3) begin m_state = 4; m_fail = 0; n_open = n_open + 1; end
                            else m_state = m_state + 1;
                        end else if (m_fail == 3) begin
                            m_state = 5; m_fail = 0; m_timer = 47; n_lock = n_lock + 1;
                        end else begin
                            m_state = 0; m_fail = m_fail + 1;
                        end
                    end
                end
                4: if (relock) m_state = 0;
                5: if (m_timer == 0) m_state = 0; else m_timer = m_timer - 1;
                default: m_state = 0;
            endcase
        end
    endtask

    // one cycle: apply inputs at the falling edge, update the model at the rising edge
    task cycle;
        input v; input [7:0] d; input rl;
        begin
            @(negedge clk);
            check;
            valid = v; data = d; relock = rl;
            @(posedge clk);
            model_step;
        end
    endtask

    task enter_code;
        integer i;
        begin
            for (i = 0; i < 4; i = i + 1) cycle(1'b1, code[i], 1'b0);
        end
    endtask

    integer i;
    initial begin
        code[0] = 8'hC4; code[1] = 8'h1F; code[2] = 8'h7A; code[3] = 8'h93;
        errors = 0; n_open = 0; n_lock = 0;
        seed = 32'h10C5_EC01;
        m_state = 0; m_fail = 0; m_timer = 0;
        valid = 1'b0; data = 8'd0; relock = 1'b0;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        // directed: unlock with gaps, stay open, relock
        cycle(1'b1, 8'hC4, 1'b0); cycle(1'b0, 8'h1F, 1'b0); cycle(1'b1, 8'h1F, 1'b0);
        cycle(1'b1, 8'h7A, 1'b0); cycle(1'b0, 8'h00, 1'b0); cycle(1'b1, 8'h93, 1'b0);
        cycle(1'b1, 8'hC4, 1'b0); cycle(1'b0, 8'h00, 1'b0); cycle(1'b0, 8'h00, 1'b1);
        // an abort at each step, a cancelled entry, then lockout on the fourth abort
        cycle(1'b1, 8'hC4, 1'b0); cycle(1'b1, 8'h00, 1'b0);
        cycle(1'b1, 8'hC4, 1'b0); cycle(1'b1, 8'h1F, 1'b0); cycle(1'b1, 8'hC4, 1'b0);
        cycle(1'b1, 8'hC4, 1'b0); cycle(1'b1, 8'h1F, 1'b0); cycle(1'b1, 8'h7A, 1'b0); cycle(1'b1, 8'h94, 1'b0);
        cycle(1'b1, 8'hC4, 1'b0); cycle(1'b0, 8'h00, 1'b1);
        cycle(1'b1, 8'hC4, 1'b0); cycle(1'b1, 8'h55, 1'b0);
        for (i = 0; i < 60; i = i + 1) cycle(1'b1, code[i % 4], i == 30);  // ignored while locked out
        // unlock after the lockout clears the failures
        cycle(1'b1, 8'hC4, 1'b0); cycle(1'b1, 8'h00, 1'b0);
        enter_code; cycle(1'b0, 8'h00, 1'b1);
        // random, biased toward the code bytes
        for (n = 0; n < 6000; n = n + 1) begin
            r = urand(0) % 100;
            cycle((urand(0) % 100) < 70,
                  (r < 75) ? code[urand(0) % 4] : (r < 85 ? code[m_state % 4] : urand(0)),
                  (urand(0) % 100) < 4);
            if ((urand(0) % 1500) == 0) begin
                @(negedge clk);
                check;
                valid = 1'b0; relock = 1'b0;
                #2 rst_n = 1'b0;
                #1 m_state = 0; m_fail = 0; m_timer = 0;
                check;
                #1 rst_n = 1'b1;
                @(posedge clk);
                model_step;
            end
        end
        @(negedge clk);
        check;
        if (n_open < 5 || n_lock < 2) begin
            $display("coverage: opened=%0d lockouts=%0d", n_open, n_lock);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (opened %0d, lockouts %0d)", n_open, n_lock);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
