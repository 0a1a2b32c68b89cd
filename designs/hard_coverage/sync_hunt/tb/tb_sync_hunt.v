`timescale 1ns/1ps
// Self-checking testbench for sync_hunt. A model is stepped at each rising edge and every
// output is compared each cycle. The directed part reaches every functional bin of
// coverage.yaml: a hunt timeout, locks and resyncs at 0 to 3 bit errors, a miss and its
// recovery, seven counted frames, lost locks and the tolerance set back to 0; then 6000
// cycles of framed traffic with corrupted sync fields, random key writes and a reset.
module tb_sync_hunt;
    localparam [15:0] SYNC = 16'hE5A3;
    reg        clk = 1'b0;
    reg        rst;
    reg        bit_valid, bit_in, cfg_we;
    reg  [7:0] cfg_key;
    reg  [1:0] cfg_thr;
    wire [1:0] thr, last_dist;
    wire       locked, found, resync, lost, missed, hunt_to;
    wire [2:0] frames;
    wire [5:0] pos;
    wire [10:0] hunt_cnt;

    sync_hunt dut (.clk(clk), .rst(rst), .bit_valid(bit_valid), .bit_in(bit_in), .cfg_we(cfg_we),
                   .cfg_key(cfg_key), .cfg_thr(cfg_thr), .thr(thr), .locked(locked), .found(found),
                   .resync(resync), .lost(lost), .last_dist(last_dist), .frames(frames), .missed(missed),
                   .pos(pos), .hunt_cnt(hunt_cnt), .hunt_to(hunt_to));

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

    reg [15:0] m_sh, w;
    integer m_thr, m_locked, m_found, m_resync, m_lost, m_last, m_frames, m_missed, m_pos, m_hunt, m_fill;
    integer errors, n, i, d, n_found, n_resync, n_lost;

    task check;
        begin
            if (thr !== m_thr[1:0] || locked !== m_locked[0] || found !== m_found[0] || resync !== m_resync[0] ||
                lost !== m_lost[0] || last_dist !== m_last[1:0] || frames !== m_frames[2:0] ||
                missed !== m_missed[0] || pos !== m_pos[5:0] || hunt_cnt !== m_hunt[10:0] ||
                hunt_to !== (m_hunt == 1500)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: locked=%b pos=%0d frames=%0d hunt=%0d expected %0d %0d %0d %0d",
                             $time, locked, pos, frames, hunt_cnt, m_locked, m_pos, m_frames, m_hunt);
            end
        end
    endtask

    task model_step;
        begin
            if (rst) begin
                m_thr = 0; m_locked = 0; m_found = 0; m_resync = 0; m_lost = 0; m_last = 0; m_frames = 0;
                m_missed = 0; m_pos = 0; m_hunt = 0; m_fill = 0; m_sh = 0;
            end else begin
                m_found = 0; m_resync = 0; m_lost = 0;
                w = {m_sh[14:0], bit_in};
                d = 0;
                for (i = 0; i < 16; i = i + 1) d = d + (w[i] ^ SYNC[i]);
                if (bit_valid) m_sh = w;
                if (!m_locked) begin
                    if (bit_valid && m_fill == 15 && d <= m_thr) begin
                        m_locked = 1; m_found = 1; m_last = d; m_pos = 0; m_missed = 0; m_frames = 0; m_hunt = 0;
                        n_found = n_found + 1;
                    end else begin
                        if (bit_valid && m_fill != 15) m_fill = m_fill + 1;
                        if (m_hunt != 1500) m_hunt = m_hunt + 1;
                    end
                end else if (bit_valid) begin
                    if (m_pos != 47) m_pos = m_pos + 1;
                    else begin
                        m_pos = 0;
                        if (d <= m_thr) begin
                            m_resync = 1; m_last = d; m_missed = 0; n_resync = n_resync + 1;
                            if (m_frames != 7) m_frames = m_frames + 1;
                        end else if (m_missed) begin
                            m_locked = 0; m_lost = 1; m_fill = 0; m_missed = 0; n_lost = n_lost + 1;
                        end else m_missed = 1;
                    end
                end
                if (cfg_we && cfg_key == 8'hC9) m_thr = cfg_thr;
            end
        end
    endtask

    task cycle;
        input v; input b; input we; input [7:0] key; input [1:0] t;
        begin
            @(negedge clk);
            check;
            bit_valid = v; bit_in = b; cfg_we = we; cfg_key = key; cfg_thr = t;
            @(posedge clk); model_step;
        end
    endtask

    task bits;
        input [31:0] word; input integer count;
        integer k;
        begin
            for (k = count - 1; k >= 0; k = k - 1) cycle(1, word[k], 0, 0, 0);
        end
    endtask

    function [15:0] flip;
        input integer k;
        integer j;
        begin
            flip = SYNC;
            for (j = 0; j < k; j = j + 1) flip = flip ^ (16'd1 << (3 + 5 * j));
        end
    endfunction

    task frame;
        input [15:0] sw;
        begin
            bits(32'h0F0F0F0F, 32); bits({16'd0, sw}, 16);
        end
    endtask

    task fail;
        input [8*32-1:0] what;
        begin
            errors = errors + 1;
            $display("MISMATCH t=%0t: %0s", $time, what);
        end
    endtask

    initial begin
        seed = 32'h5EED_0042; errors = 0; n_found = 0; n_resync = 0; n_lost = 0;
        rst = 1'b1; bit_valid = 0; bit_in = 0; cfg_we = 0; cfg_key = 0; cfg_thr = 0;
        @(posedge clk); model_step;
        @(negedge clk); rst = 1'b0;
        @(posedge clk); model_step;
        cycle(0, 0, 1, 8'hC8, 3);                       // wrong key
        for (n = 0; n < 1505; n = n + 1) cycle(0, 0, 0, 0, 0);
        if (m_hunt != 1500) fail("no hunt timeout");
        cycle(0, 0, 1, 8'hC9, 1); cycle(0, 0, 1, 8'hC9, 2);
        bits({16'd0, flip(2)}, 16);
        if (!m_locked) fail("no lock at two errors");
        frame(SYNC); frame(flip(1)); frame(flip(2)); frame(16'h0000); frame(SYNC);
        cycle(0, 0, 1, 8'hC9, 3);
        frame(flip(3)); frame(SYNC); frame(SYNC); frame(SYNC); frame(SYNC);
        if (m_frames != 7) fail("frames not saturated");
        frame(16'h0000); frame(16'h0000);
        if (m_locked) fail("lock not lost");
        bits({16'd0, flip(3)}, 16);
        frame(16'h0000); frame(16'h0000);
        cycle(0, 0, 1, 8'hC9, 1);
        bits({16'd0, flip(1)}, 16);
        frame(16'h0000); frame(16'h0000);
        cycle(0, 0, 1, 8'hC9, 0);
        bits({16'd0, SYNC}, 16);
        if (!m_locked || m_last != 0) fail("no exact lock");
        for (n = 0; n < 120; n = n + 1) begin
            if (urand(0) % 8 == 0) cycle(0, 0, 1, (urand(0) % 2) ? 8'hC9 : urand(0), urand(0));
            if (urand(0) % 4 == 0) bits(urand(0), 1 + urand(0) % 7);
            frame((urand(0) % 3 == 0) ? urand(0) : flip(urand(0) % 4));
        end
        @(negedge clk); check; rst = 1'b1;
        @(posedge clk); model_step;
        @(negedge clk); check; rst = 1'b0;
        @(posedge clk); model_step;
        for (n = 0; n < 400; n = n + 1) cycle(urand(0) % 2, urand(0) % 2, 0, 0, 0);
        @(negedge clk); check;
        if (n_found < 10 || n_resync < 20 || n_lost < 5) begin
            errors = errors + 1; $display("coverage: found=%0d resync=%0d lost=%0d", n_found, n_resync, n_lost);
        end
        if (errors == 0) $display("TEST PASSED (%0d locks, %0d resyncs, %0d losses)", n_found, n_resync, n_lost);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
