// arbiter_rr: 4-requester round-robin arbiter with a lock input and
// per-requester starvation counters. grant is registered and one-hot (or 0).
// At each edge: if lock = 1 and the current holder still requests, it keeps
// the grant; otherwise the grant goes to the first requester after the last
// one granted (round robin), or to nobody when none requests. Each requester
// has a counter of consecutive cycles it requested without being granted
// (saturating at 15); starve[i] = counter >= STARVE_N.
module arbiter_rr (
    input  wire       clk,
    input  wire       rst,
    input  wire [3:0] req,
    input  wire       lock,
    output reg  [3:0] grant,
    output wire [3:0] starve,
    output wire [3:0] max_wait      // largest starvation counter
);
    localparam [3:0] STARVE_N = 4'd12;

    reg [1:0] last;                 // index of the last requester granted
    reg [3:0] wait0, wait1, wait2, wait3;

    // rotate the requests so the one after `last` is bit 0, pick the lowest
    wire [7:0] req2 = {req, req};
    wire [3:0] rot  = req2[last + 3'd1 +: 4];
    reg  [1:0] offset;
    always @* begin
        casez (rot)
            4'b???1: offset = 2'd0;
            4'b??10: offset = 2'd1;
            4'b?100: offset = 2'd2;
            default: offset = 2'd3;
        endcase
    end
    wire [1:0] pick = last + 2'd1 + offset;
    wire       hold = lock && |(grant & req);

    always @(posedge clk) begin
        if (rst) begin
            grant <= 4'd0;
            last  <= 2'd3;          // requester 0 has the first turn
        end else if (!hold) begin
            if (|req) begin
                grant <= 4'd1 << pick;
                last  <= pick;
            end else begin
                grant <= 4'd0;
            end
        end
    end

    // a requester waits when it requests and the grant after this edge is not its
    wire [3:0] grant_next = hold ? grant : (|req ? (4'd1 << pick) : 4'd0);
    // next value of a starvation counter: +1 while waiting (saturating at 15), else 0
    function [3:0] bump;
        input [3:0] count;
        input       waiting;
        begin
            bump = waiting ? count + {3'd0, count != 4'd15} : 4'd0;
        end
    endfunction
    always @(posedge clk) begin
        if (rst) begin
            wait0 <= 4'd0; wait1 <= 4'd0; wait2 <= 4'd0; wait3 <= 4'd0;
        end else begin
            wait0 <= bump(wait0, req[0] & ~grant_next[0]);
            wait1 <= bump(wait1, req[1] & ~grant_next[1]);
            wait2 <= bump(wait2, req[2] & ~grant_next[2]);
            wait3 <= bump(wait3, req[3] & ~grant_next[3]);
        end
    end

    assign starve = {wait3 >= STARVE_N, wait2 >= STARVE_N, wait1 >= STARVE_N, wait0 >= STARVE_N};
    wire [3:0] max01 = (wait0 > wait1) ? wait0 : wait1;
    wire [3:0] max23 = (wait2 > wait3) ? wait2 : wait3;
    assign max_wait = (max01 > max23) ? max01 : max23;
endmodule
