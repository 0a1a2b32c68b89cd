// sync_hunt: serial sync-word hunter with a programmable error tolerance and a long
// hunt timeout. Bits arrive on bit_in when bit_valid is 1 and shift into a 16-bit
// register. While hunting, once 16 bits are in, a window within thr bit errors of
// the sync word E5A3 locks (found). Locked, frames are 48 bits (32 payload, 16
// sync); the sync field at each frame's end is checked with the same tolerance: a
// match counts the frame (frames, saturating at 7), two misses in a row lose the
// lock. thr is written only with the key C9 on cfg_key. Hunting for 1500 cycles
// without a lock raises hunt_to (the count saturates there). Sync active-high reset.
module sync_hunt (
    input  wire       clk,
    input  wire       rst,
    input  wire       bit_valid,
    input  wire       bit_in,
    input  wire       cfg_we,
    input  wire [7:0] cfg_key,
    input  wire [1:0] cfg_thr,
    output reg  [1:0] thr,
    output reg        locked,
    output reg        found,
    output reg        resync,
    output reg        lost,
    output reg  [1:0] last_dist,
    output reg  [2:0] frames,
    output reg        missed,
    output reg  [5:0] pos,
    output reg [10:0] hunt_cnt,
    output wire       hunt_to
);
    localparam [15:0] SYNC     = 16'hE5A3;
    localparam [7:0]  KEY      = 8'hC9;
    localparam [10:0] HUNT_MAX = 11'd1500;

    reg  [14:0] shreg;
    reg  [4:0]  fill;

    function [4:0] popcount;
        input [15:0] v;
        integer i;
        begin
            popcount = 5'd0;
            for (i = 0; i < 16; i = i + 1)
                popcount = popcount + {4'd0, v[i]};
        end
    endfunction

    wire [15:0] nxt   = {shreg, bit_in};
    wire [4:0]  errs  = popcount(nxt ^ SYNC);
    wire        near = (errs <= {3'd0, thr});

    always @(posedge clk) begin
        if (rst) begin
            thr       <= 2'd0;
            locked    <= 1'b0;
            found     <= 1'b0;
            resync    <= 1'b0;
            lost      <= 1'b0;
            last_dist <= 2'd0;
            frames    <= 3'd0;
            missed    <= 1'b0;
            pos       <= 6'd0;
            hunt_cnt  <= 11'd0;
            shreg     <= 15'd0;
            fill      <= 5'd0;
        end else begin
            found  <= 1'b0;
            resync <= 1'b0;
            lost   <= 1'b0;
            if (cfg_we && cfg_key == KEY)
                thr <= cfg_thr;
            if (bit_valid)
                shreg <= nxt[14:0];
            if (!locked) begin
                if (bit_valid && fill == 5'd15 && near) begin
                    locked    <= 1'b1;
                    found     <= 1'b1;
                    last_dist <= errs[1:0];
                    pos       <= 6'd0;
                    missed    <= 1'b0;
                    frames    <= 3'd0;
                    hunt_cnt  <= 11'd0;
                end else begin
                    if (bit_valid && fill != 5'd15)
                        fill <= fill + 5'd1;
                    if (hunt_cnt != HUNT_MAX)
                        hunt_cnt <= hunt_cnt + 11'd1;
                end
            end else if (bit_valid) begin
                if (pos != 6'd47)
                    pos <= pos + 6'd1;
                else begin
                    pos <= 6'd0;
                    if (near) begin
                        resync    <= 1'b1;
                        last_dist <= errs[1:0];
                        missed    <= 1'b0;
                        if (frames != 3'd7)
                            frames <= frames + 3'd1;
                    end else if (missed) begin
                        locked <= 1'b0;
                        lost   <= 1'b1;
                        fill   <= 5'd0;
                        missed <= 1'b0;
                    end else
                        missed <= 1'b1;
                end
            end
        end
    end

    assign hunt_to = (hunt_cnt == HUNT_MAX);
endmodule
